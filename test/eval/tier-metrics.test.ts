import { describe, expect, it } from 'vitest';
import { toConfusionMatrix } from '../../eval/confusion-matrix.js';
import { toMacroF1, toTierScores } from '../../eval/tier-scores.js';
import { pairs } from './scored-case-fixture.js';

describe('toConfusionMatrix', () => {
  it('counts gold -> predicted, with zeros for pairs that never occur', () => {
    const matrix = toConfusionMatrix(
      pairs('SIMPLE>SIMPLE', 'SIMPLE>MODERATE', 'SIMPLE>MODERATE', 'EXPERT>COMPLEX'),
    );
    expect(matrix.SIMPLE).toEqual({ SIMPLE: 1, MODERATE: 2, COMPLEX: 0, EXPERT: 0 });
    expect(matrix.EXPERT).toEqual({ SIMPLE: 0, MODERATE: 0, COMPLEX: 1, EXPERT: 0 });
    expect(matrix.MODERATE).toEqual({ SIMPLE: 0, MODERATE: 0, COMPLEX: 0, EXPERT: 0 });
  });
});

describe('toTierScores and toMacroF1', () => {
  // gold SIMPLE x3: predicted S, S, M. gold MODERATE x2: M, S. gold COMPLEX x1: E. gold EXPERT: none.
  const scores = toTierScores(
    toConfusionMatrix(
      pairs(
        'SIMPLE>SIMPLE',
        'SIMPLE>SIMPLE',
        'SIMPLE>MODERATE',
        'MODERATE>MODERATE',
        'MODERATE>SIMPLE',
        'COMPLEX>EXPERT',
      ),
    ),
  );

  it('computes precision, recall and F1 per tier by hand', () => {
    // SIMPLE: 2 hits, 3 predicted, 3 gold -> P 2/3, R 2/3, F1 2/3.
    expect(scores.SIMPLE).toMatchObject({ support: 3, predicted: 3, precision: 2 / 3, recall: 2 / 3 });
    expect(scores.SIMPLE.f1).toBeCloseTo(2 / 3, 12);
    // MODERATE: 1 hit, 2 predicted, 2 gold -> 1/2 each.
    expect(scores.MODERATE).toMatchObject({ support: 2, predicted: 2, precision: 0.5, recall: 0.5, f1: 0.5 });
  });

  it('gives 0 (not NaN) to a tier that was never predicted or has no gold case', () => {
    expect(scores.COMPLEX).toEqual({ support: 1, predicted: 0, precision: 0, recall: 0, f1: 0 });
    expect(scores.EXPERT).toEqual({ support: 0, predicted: 1, precision: 0, recall: 0, f1: 0 });
  });

  it('averages F1 over tiers seen as gold or prediction', () => {
    // All four tiers occur: (2/3 + 1/2 + 0 + 0) / 4.
    expect(toMacroF1(scores)).toBeCloseTo((2 / 3 + 0.5) / 4, 12);
  });

  it('leaves a tier that is neither gold nor predicted out of the macro average', () => {
    const two = toTierScores(toConfusionMatrix(pairs('SIMPLE>SIMPLE', 'EXPERT>EXPERT', 'EXPERT>SIMPLE')));
    // SIMPLE: P 1/2, R 1 -> F1 2/3. EXPERT: P 1, R 1/2 -> F1 2/3. MODERATE and COMPLEX absent.
    expect(toMacroF1(two)).toBeCloseTo(2 / 3, 12);
  });

  it('is 0 for no cases at all', () => {
    expect(toMacroF1(toTierScores(toConfusionMatrix([])))).toBe(0);
  });
});
