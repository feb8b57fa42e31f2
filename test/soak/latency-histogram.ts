/** Latencies in 1 ms buckets up to `maxMs` (larger ones count in the last): constant memory for any run. */
export interface LatencyHistogram {
  add(milliseconds: number): void;
  /** The latency below which `fraction` of the samples fall, ms. */
  quantile(fraction: number): number;
  max(): number;
}

export function createLatencyHistogram(maxMs = 30_000): LatencyHistogram {
  const buckets = new Float64Array(maxMs + 1);
  let count = 0;
  let largest = 0;
  return {
    add(milliseconds) {
      const index = Math.min(maxMs, Math.max(0, Math.floor(milliseconds)));
      buckets[index] = (buckets[index] ?? 0) + 1;
      count += 1;
      largest = Math.max(largest, milliseconds);
    },
    quantile(fraction) {
      const target = fraction * count;
      let seen = 0;
      for (let index = 0; index <= maxMs; index += 1) {
        seen += buckets[index] ?? 0;
        if (seen >= target && seen > 0) return index;
      }
      return 0;
    },
    max: () => largest,
  };
}
