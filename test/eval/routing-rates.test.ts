import { describe, expect, it } from 'vitest';
import {
  toAcceptableAccuracy,
  toAccuracy,
  toRoutingRates,
  toRoutingRatesByTier,
  toTierDistance,
} from '../../eval/routing-rates.js';
import { pairs, toScoredCases } from './scored-case-fixture.js';

describe('accuracy', () => {
  it('counts exact matches', () => {
    expect(toAccuracy(pairs('SIMPLE>SIMPLE', 'SIMPLE>MODERATE', 'EXPERT>EXPERT', 'COMPLEX>MODERATE'))).toBe(
      0.5,
    );
  });

  it('also accepts a prediction in the acceptable set, but not a tier outside it', () => {
    const cases = toScoredCases([
      { gold: 'COMPLEX', predicted: 'MODERATE', acceptable: ['MODERATE'] },
      { gold: 'COMPLEX', predicted: 'SIMPLE', acceptable: ['MODERATE'] },
      { gold: 'SIMPLE', predicted: 'SIMPLE' },
      { gold: 'EXPERT', predicted: 'COMPLEX' },
    ]);
    expect(toAccuracy(cases)).toBe(0.25);
    expect(toAcceptableAccuracy(cases)).toBe(0.5);
  });

  it('is 0 for no cases', () => {
    expect(toAccuracy([])).toBe(0);
    expect(toAcceptableAccuracy([])).toBe(0);
  });
});

describe('routing rates', () => {
  it('measures the signed tier distance', () => {
    expect(pairs('EXPERT>SIMPLE', 'SIMPLE>COMPLEX', 'MODERATE>MODERATE').map(toTierDistance)).toEqual([
      -3, 2, 0,
    ]);
  });

  it('splits misses into under-routing (below gold) and over-routing (above gold)', () => {
    const rates = toRoutingRates(
      pairs('SIMPLE>MODERATE', 'COMPLEX>SIMPLE', 'EXPERT>COMPLEX', 'MODERATE>MODERATE'),
    );
    expect(rates).toEqual({ n: 4, under: 0.5, over: 0.25 });
  });

  it('counts an acceptable lower tier as under-routing: the rates use the gold label only', () => {
    const cases = toScoredCases([{ gold: 'COMPLEX', predicted: 'MODERATE', acceptable: ['MODERATE'] }]);
    expect(toRoutingRates(cases).under).toBe(1);
  });

  it('reports rates per gold tier, with an empty tier at n 0 and rates 0', () => {
    const byTier = toRoutingRatesByTier(
      pairs('SIMPLE>SIMPLE', 'SIMPLE>EXPERT', 'EXPERT>MODERATE', 'EXPERT>EXPERT'),
    );
    expect(byTier.SIMPLE).toEqual({ n: 2, under: 0, over: 0.5 });
    expect(byTier.EXPERT).toEqual({ n: 2, under: 0.5, over: 0 });
    expect(byTier.COMPLEX).toEqual({ n: 0, under: 0, over: 0 });
  });
});
