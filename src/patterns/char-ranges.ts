/**
 * Sets of code points (or UTF-16 code units) as sorted, disjoint, inclusive `[low, high]` pairs, one per
 * character class of a regex: read by the RE2 translation (`linear-regex.ts`) and the regex audit
 * (`test/regex-audit/regex-safety.ts`).
 */
export type CharRanges = readonly (readonly [number, number])[];

/** Highest code point with the `u` or `v` flag; without them a regex reads UTF-16 code units. */
export const MAX_CODE_POINT = 0x10ffff;
export const MAX_CODE_UNIT = 0xffff;

/** Line terminators: what `.` does not match without `s`, and what `^` and `$` follow or precede with `m`. */
export const LINE_TERMINATORS: CharRanges = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];

/** `\s`: WhiteSpace and LineTerminator of ECMA-262. */
export const WHITE_SPACE: CharRanges = toCharRanges([
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
]);

export const DIGITS: CharRanges = [[0x30, 0x39]];

/** `\w`; with `i` and `u` together it also matches U+017F and U+212A (added where it is built). */
export const WORD: CharRanges = toCharRanges([
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
]);

/** Sorted, merged ranges from pairs in any order. */
export function toCharRanges(pairs: readonly (readonly [number, number])[]): CharRanges {
  const sorted = [...pairs].filter(([low, high]) => low <= high).sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [low, high] of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && low <= last[1] + 1) last[1] = Math.max(last[1], high);
    else merged.push([low, high]);
  }
  return merged;
}

export function unionRanges(sets: readonly CharRanges[]): CharRanges {
  return toCharRanges(sets.flat());
}

/** Everything from 0 to `max` that is not in `set`. */
export function complementRanges(set: CharRanges, max: number): CharRanges {
  const result: [number, number][] = [];
  let next = 0;
  for (const [low, high] of set) {
    if (low > next) result.push([next, Math.min(low - 1, max)]);
    next = Math.max(next, high + 1);
  }
  if (next <= max) result.push([next, max]);
  return result;
}

export function intersectRanges(a: CharRanges, b: CharRanges): CharRanges {
  const result: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const [lowA, highA] = a[i] ?? [0, -1];
    const [lowB, highB] = b[j] ?? [0, -1];
    const low = Math.max(lowA, lowB);
    const high = Math.min(highA, highB);
    if (low <= high) result.push([low, high]);
    if (highA < highB) i += 1;
    else j += 1;
  }
  return result;
}

export function rangesOverlap(a: CharRanges, b: CharRanges): boolean {
  return intersectRanges(a, b).length > 0;
}
