import { describe, expect, it } from 'vitest';
import { decideWithVerdict, toNeighbourConfusion, toVerdictPosterior } from './combine-with-verdict.js';

const calibration = (localWeight: number, underPenalty: number) => ({
  confusion: toNeighbourConfusion(0.87),
  localWeight,
  underPenalty,
});
const flat = { SIMPLE: 0.25, MODERATE: 0.25, COMPLEX: 0.25, EXPERT: 0.25 };

describe('the calibrated combination of local probabilities and the LLM verdict', () => {
  it('builds a confusion matrix whose rows sum to 1 and whose errors are one tier off', () => {
    const matrix = toNeighbourConfusion(0.8);
    for (const row of matrix) expect(row.reduce((sum, share) => sum + share, 0)).toBeCloseTo(1, 12);
    expect(matrix[0]).toEqual([0.8, expect.closeTo(0.2, 12), 0, 0]);
    expect(matrix[1]).toEqual([expect.closeTo(0.1, 12), 0.8, expect.closeTo(0.1, 12), 0]);
    expect(matrix[3]).toEqual([0, 0, expect.closeTo(0.2, 12), 0.8]);
  });

  it('computes p(t | v) proportional to p_local(t)^a times C[v|t]', () => {
    const local = { SIMPLE: 0.1, MODERATE: 0.6, COMPLEX: 0.3, EXPERT: 0 };
    const posterior = toVerdictPosterior(local, 'COMPLEX', calibration(1, 0));
    // weights: SIMPLE 0.1 * 0.001 (floor), MODERATE 0.6 * 0.065, COMPLEX 0.3 * 0.87, EXPERT 0.001 * 0.13
    const weights = [0.1 * 0.001, 0.6 * 0.065, 0.3 * 0.87, 0.001 * 0.13];
    const total = weights.reduce((sum, value) => sum + value, 0);
    expect(posterior.COMPLEX).toBeCloseTo((weights[2] ?? 0) / total, 10);
    expect(posterior.MODERATE).toBeCloseTo((weights[1] ?? 0) / total, 10);
    expect(Object.values(posterior).reduce((sum, share) => sum + share, 0)).toBeCloseTo(1, 12);
  });

  it('follows the verdict when the local stage has no opinion', () => {
    for (const verdict of ['SIMPLE', 'MODERATE', 'COMPLEX', 'EXPERT'] as const)
      expect(decideWithVerdict(flat, verdict, calibration(1, 0)).tier).toBe(verdict);
  });

  it('keeps a very sure local tier against a one-tier-off verdict, but not at local weight 0', () => {
    const sure = { SIMPLE: 0.005, MODERATE: 0.985, COMPLEX: 0.005, EXPERT: 0.005 };
    expect(decideWithVerdict(sure, 'COMPLEX', calibration(1, 0)).tier).toBe('MODERATE');
    expect(decideWithVerdict(sure, 'COMPLEX', calibration(0, 0)).tier).toBe('COMPLEX');
  });

  it('rounds a torn posterior up as the under-routing penalty grows', () => {
    const torn = { SIMPLE: 0, MODERATE: 0.75, COMPLEX: 0.25, EXPERT: 0 };
    expect(decideWithVerdict(torn, 'MODERATE', calibration(1, 0)).tier).toBe('MODERATE');
    expect(decideWithVerdict(torn, 'COMPLEX', calibration(1, 0)).tier).toBe('COMPLEX');
    const lean = { SIMPLE: 0, MODERATE: 0.95, COMPLEX: 0.05, EXPERT: 0 };
    expect(decideWithVerdict(lean, 'COMPLEX', calibration(1, 0)).tier).toBe('MODERATE');
    expect(decideWithVerdict(lean, 'COMPLEX', calibration(1, 4)).tier).toBe('COMPLEX');
  });

  it('never makes a tier impossible: a heuristic bound at probability 0 yields to a unanimous verdict', () => {
    const bounded = { SIMPLE: 1, MODERATE: 0, COMPLEX: 0, EXPERT: 0 };
    const posterior = toVerdictPosterior(bounded, 'MODERATE', calibration(0.5, 0));
    expect(posterior.MODERATE).toBeGreaterThan(0);
  });
});
