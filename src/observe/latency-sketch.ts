/**
 * Bin growth factor: bin i >= 1 holds values in (GROWTH^(i-1), GROWTH^i] ms, so a quantile read from
 * a bin is within (GROWTH - 1) / (GROWTH + 1), about 4.8 %, of a true value (DDSketch's bound).
 */
const GROWTH = 1.1;
const LOG_GROWTH = Math.log(GROWTH);
/** Largest value with a bin of its own, ms (1 hour); longer ones share the last bin. */
const LARGEST_MS = 3_600_000;
/** Bins: one for values up to 1 ms, then log-spaced bins up to LARGEST_MS (160 in all, 640 bytes). */
export const SKETCH_BINS = 1 + Math.ceil(Math.log(LARGEST_MS) / LOG_GROWTH);

/**
 * A fixed-size latency histogram: memory does not grow with the values added (one Uint32Array of
 * SKETCH_BINS counts, plus the count, smallest and largest value). Quantiles are read to about 5 %.
 */
export interface LatencySketch {
  /** Adds a duration in ms; negative or non-finite values count as 0. */
  add(milliseconds: number): void;
  /** Adds every value of another sketch. */
  merge(other: LatencySketch): void;
  count(): number;
  /** The value at quantile `fraction` (0..1), within the sketch's bound; undefined when empty. */
  quantile(fraction: number): number | undefined;
  /** Several quantiles in one pass over the bins (`fractions` in ascending order). */
  quantiles(fractions: readonly number[]): (number | undefined)[];
  /** The counts per bin (read-only view), for merging. */
  readonly bins: Readonly<Uint32Array>;
  readonly min: number;
  readonly max: number;
}

function toBin(milliseconds: number): number {
  if (milliseconds <= 1) return 0;
  return Math.min(SKETCH_BINS - 1, Math.ceil(Math.log(milliseconds) / LOG_GROWTH));
}

/** The value a bin stands for: the point of least relative error within its range. */
function fromBin(bin: number): number {
  if (bin === 0) return 0.5;
  return (2 * GROWTH ** bin) / (GROWTH + 1);
}

export function createLatencySketch(): LatencySketch {
  const bins = new Uint32Array(SKETCH_BINS);
  let count = 0;
  let min = Infinity;
  let max = -Infinity;
  return {
    bins,
    get min() {
      return min;
    },
    get max() {
      return max;
    },
    add(milliseconds) {
      const value = Number.isFinite(milliseconds) && milliseconds > 0 ? milliseconds : 0;
      const bin = toBin(value);
      bins[bin] = (bins[bin] ?? 0) + 1;
      count += 1;
      min = Math.min(min, value);
      max = Math.max(max, value);
    },
    merge(other) {
      if (other.count() === 0) return;
      for (let bin = 0; bin < SKETCH_BINS; bin += 1) bins[bin] = (bins[bin] ?? 0) + (other.bins[bin] ?? 0);
      count += other.count();
      min = Math.min(min, other.min);
      max = Math.max(max, other.max);
    },
    count: () => count,
    quantile: (fraction) => quantiles([fraction])[0],
    quantiles,
  };

  function quantiles(fractions: readonly number[]): (number | undefined)[] {
    if (count === 0) return fractions.map(() => undefined);
    const ranks = fractions.map((fraction) =>
      Math.max(1, Math.ceil(Math.min(1, Math.max(0, fraction)) * count)),
    );
    const found: (number | undefined)[] = [];
    let seen = 0;
    let bin = 0;
    for (const rank of ranks) {
      // the extremes are kept exactly
      if (rank === 1) found.push(min);
      else if (rank === count) found.push(max);
      else {
        while (bin < SKETCH_BINS && seen + (bins[bin] ?? 0) < rank) seen += bins[bin++] ?? 0;
        // clamped to the values seen: a sketch of equal values answers them exactly
        found.push(Math.min(max, Math.max(min, fromBin(bin))));
      }
    }
    return found;
  }
}
