import { describe, expect, it } from 'vitest';
import { toNeighbourConfusion } from './combine-with-verdict.js';
import { toExpectedCost, toValueOfAsking } from './value-of-asking.js';

const calibration = { confusion: toNeighbourConfusion(0.87), localWeight: 1, underPenalty: 1 };

describe('the value of asking the LLM', () => {
  it('weighs under-routing by 1 + underPenalty per tier and over-routing by 1', () => {
    const probabilities = { SIMPLE: 0, MODERATE: 0.5, COMPLEX: 0, EXPERT: 0.5 };
    expect(toExpectedCost(probabilities, 'MODERATE', 1)).toBeCloseTo(0.5 * 2 * 2, 12);
    expect(toExpectedCost(probabilities, 'EXPERT', 1)).toBeCloseTo(0.5 * 2, 12);
  });

  it('is near 0 for a sure local stage and grows as it is torn', () => {
    const sure = { SIMPLE: 0.995, MODERATE: 0.003, COMPLEX: 0.001, EXPERT: 0.001 };
    const torn = { SIMPLE: 0.05, MODERATE: 0.45, COMPLEX: 0.45, EXPERT: 0.05 };
    const valueOfSure = toValueOfAsking({ tier: 'SIMPLE', probabilities: sure }, calibration);
    const valueOfTorn = toValueOfAsking({ tier: 'MODERATE', probabilities: torn }, calibration);
    expect(valueOfSure).toBeLessThan(0.01);
    expect(valueOfTorn).toBeGreaterThan(0.3);
  });

  it('is worth nothing when the LLM is a coin toss (its verdict carries no information)', () => {
    const coin = { ...calibration, confusion: [0, 1, 2, 3].map(() => [0.25, 0.25, 0.25, 0.25]) };
    const torn = { SIMPLE: 0.05, MODERATE: 0.45, COMPLEX: 0.45, EXPERT: 0.05 };
    expect(toValueOfAsking({ tier: 'COMPLEX', probabilities: torn }, coin)).toBeCloseTo(0, 9);
  });
});
