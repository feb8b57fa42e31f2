import type { ScoredCase } from './scored-case.js';

/** Percentiles of one latency series, in milliseconds; all 0 when `n` is 0. */
export interface LatencySummary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
}

/**
 * Nearest-rank percentile (`p` in 0..100) of values sorted ascending: the smallest value with at
 * least p% of the values at or below it, so the result is always an observed value. 0 when empty.
 */
export function toPercentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? 0;
}

export function toLatencySummary(values: readonly number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: toPercentile(sorted, 50),
    p95: toPercentile(sorted, 95),
    p99: toPercentile(sorted, 99),
  };
}

export type Stage = 'heuristic' | 'learned' | 'llm';

export const STAGES: readonly Stage[] = ['heuristic', 'learned', 'llm'];

/** Latency of one stage over the cases where it ran; the core reports 0 or nothing for a skipped stage. */
export function toStageLatency(cases: readonly ScoredCase[], stage: Stage): LatencySummary {
  const values = cases
    .map((scored) => scored.decision.stageLatencyMs[stage])
    .filter((value): value is number => value !== undefined && value > 0);
  return toLatencySummary(values);
}
