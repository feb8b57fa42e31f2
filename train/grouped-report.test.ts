import { describe, expect, it } from 'vitest';
import { toMacroMetrics, toSeedSpread } from './grouped-report.js';

const metrics = (exact: number, count: number) => ({ count, exact, under: 0.1, over: 1 - exact - 0.1 });

describe('toSeedSpread', () => {
  it('is the mean and the standard error of the mean across seeds', () => {
    const spread = toSeedSpread([0.6, 0.7, 0.8]);
    expect(spread.mean).toBeCloseTo(0.7);
    expect(spread.standardError).toBeCloseTo(0.1 / Math.sqrt(3));
    expect(toSeedSpread([0.5])).toEqual({ mean: 0.5, standardError: 0 });
  });
});

describe('toMacroMetrics', () => {
  it('weighs every source the same, whatever its size', () => {
    const macro = toMacroMetrics([
      { heuristic: metrics(0.5, 100), learned: metrics(0.5, 100), local: metrics(0.9, 100) },
      { heuristic: metrics(0.5, 10), learned: metrics(0.5, 10), local: metrics(0.5, 10) },
    ]);
    expect(macro.local.exact).toBeCloseTo(0.7);
    expect(macro.local.count).toBe(110);
  });
});
