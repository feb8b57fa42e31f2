/** Small helpers for combining repeated runs. */

/** Median of the values (mean of the middle two for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? upper) + upper) / 2;
}

/** Rounds to microseconds when the value is in milliseconds (3 decimals). */
export function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** The items shifted left by `by` places (round `by` of an interleaved run starts elsewhere). */
export function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = by % Math.max(1, items.length);
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/** ours / theirs to 3 decimals; null when either is missing or theirs is not positive. */
export function ratio(ours: number | null | undefined, theirs: number | null | undefined): number | null {
  if (ours === null || ours === undefined || theirs === null || theirs === undefined || theirs <= 0)
    return null;
  return Math.round((ours / theirs) * 1000) / 1000;
}
