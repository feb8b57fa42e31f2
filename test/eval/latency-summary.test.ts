import { describe, expect, it } from 'vitest';
import { toLatencySummary, toPercentile, toStageLatency } from '../../eval/latency-summary.js';
import { toScoredCases } from './scored-case-fixture.js';

describe('toPercentile (nearest rank)', () => {
  const values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

  it('returns an observed value: the smallest with at least p% at or below it', () => {
    expect(toPercentile(values, 50)).toBe(5);
    expect(toPercentile(values, 95)).toBe(10);
    expect(toPercentile(values, 10)).toBe(1);
    expect(toPercentile(values, 0)).toBe(1);
    expect(toPercentile(values, 100)).toBe(10);
  });

  it('handles ties and a single value', () => {
    expect(toPercentile([2, 2, 2, 9], 50)).toBe(2);
    expect(toPercentile([2, 2, 2, 9], 99)).toBe(9);
    expect(toPercentile([7], 99)).toBe(7);
  });

  it('is 0 for no values', () => {
    expect(toPercentile([], 50)).toBe(0);
  });
});

describe('toLatencySummary', () => {
  it('sorts before ranking and reports n', () => {
    const values = [30, 10, 20, ...Array.from({ length: 97 }, () => 1)];
    expect(toLatencySummary(values)).toEqual({ n: 100, p50: 1, p95: 1, p99: 20 });
  });

  it('is all zero for no values', () => {
    expect(toLatencySummary([])).toEqual({ n: 0, p50: 0, p95: 0, p99: 0 });
  });
});

describe('toStageLatency', () => {
  it('leaves out cases where the stage did not run (0 or absent)', () => {
    const cases = toScoredCases([
      {
        gold: 'SIMPLE',
        predicted: 'SIMPLE',
        decision: { stageLatencyMs: { heuristic: 0.2, learned: 0, llm: 40 } },
      },
      { gold: 'SIMPLE', predicted: 'SIMPLE', decision: { stageLatencyMs: { heuristic: 0.4, learned: 0.1 } } },
      { gold: 'SIMPLE', predicted: 'SIMPLE', decision: { stageLatencyMs: {} } },
    ]);
    expect(toStageLatency(cases, 'heuristic')).toEqual({ n: 2, p50: 0.2, p95: 0.4, p99: 0.4 });
    expect(toStageLatency(cases, 'learned').n).toBe(1);
    expect(toStageLatency(cases, 'llm')).toEqual({ n: 1, p50: 40, p95: 40, p99: 40 });
  });
});
