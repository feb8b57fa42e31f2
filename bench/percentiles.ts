/**
 * Exact percentiles over every recorded sample (no histogram buckets): sort once, take the
 * nearest rank. Sample counts in this bench are at most a few hundred thousand, so this is cheap
 * and keeps sub-millisecond precision that autocannon's integer HDR histogram would round away.
 */
export interface Summary {
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  minMs: number;
  meanMs: number;
}

/** Nearest-rank percentile of an ascending array; 0 when empty. `percent` is 0-100. */
export function percentile(sorted: readonly number[], percent: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((percent / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? 0;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((left, right) => left - right);
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return {
    p50Ms: round(percentile(sorted, 50)),
    p90Ms: round(percentile(sorted, 90)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted.at(-1) ?? 0),
    minMs: round(sorted[0] ?? 0),
    meanMs: round(sorted.length === 0 ? 0 : total / sorted.length),
  };
}

/** Milliseconds rounded to microseconds, enough for loopback latencies. */
export function round(milliseconds: number): number {
  return Math.round(milliseconds * 1000) / 1000;
}

/** Elapsed milliseconds since a `process.hrtime.bigint()` reading. */
export function elapsedMs(start: bigint, end: bigint = process.hrtime.bigint()): number {
  return Number(end - start) / 1e6;
}
