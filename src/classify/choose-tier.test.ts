import { describe, expect, it } from 'vitest';
import { applyTierBounds, chooseTier } from './choose-tier.js';

const probabilities = { SIMPLE: 0.1, MODERATE: 0.45, COMPLEX: 0.4, EXPERT: 0.05 };

describe('chooseTier', () => {
  it('picks the median tier without an under-routing penalty', () => {
    expect(chooseTier(probabilities, { underPenalty: 0 })).toBe('MODERATE');
  });

  it('leans to the higher tier when it is nearly as likely and under-routing costs more', () => {
    expect(chooseTier(probabilities, { underPenalty: 0.5 })).toBe('COMPLEX');
  });

  it('does not jump to an unlikely tier', () => {
    expect(
      chooseTier({ SIMPLE: 0.9, MODERATE: 0.08, COMPLEX: 0.01, EXPERT: 0.01 }, { underPenalty: 1 }),
    ).toBe('SIMPLE');
  });

  it('keeps a likely SIMPLE request at or below MODERATE even with a high under-routing penalty', () => {
    const spelling = { SIMPLE: 0.78, MODERATE: 0.08, COMPLEX: 0.07, EXPERT: 0.07 };
    for (const underPenalty of [0, 0.5, 1, 2.5, 4])
      expect(['SIMPLE', 'MODERATE']).toContain(chooseTier(spelling, { underPenalty }));
  });

  it('charges over-routing by the number of tiers skipped', () => {
    const split = { SIMPLE: 0.5, MODERATE: 0, COMPLEX: 0, EXPERT: 0.5 };
    expect(chooseTier(split, { underPenalty: 0.5 })).toBe('EXPERT');
    expect(chooseTier({ ...split, SIMPLE: 0.7, EXPERT: 0.3 }, { underPenalty: 1 })).toBe('SIMPLE');
  });

  it('breaks exact ties towards the higher tier', () => {
    expect(chooseTier({ SIMPLE: 0.5, MODERATE: 0.5, COMPLEX: 0, EXPERT: 0 }, { underPenalty: 0 })).toBe(
      'MODERATE',
    );
  });
});

describe('applyTierBounds', () => {
  it('moves probability below the floor onto the floor', () => {
    const bounded = applyTierBounds(probabilities, { floor: 'COMPLEX' });
    expect([bounded.SIMPLE, bounded.MODERATE]).toEqual([0, 0]);
    expect(bounded.COMPLEX).toBeCloseTo(0.95, 12);
    expect(bounded.EXPERT).toBeCloseTo(0.05, 12);
  });

  it('moves probability above the ceiling onto the ceiling', () => {
    const bounded = applyTierBounds(probabilities, { ceiling: 'SIMPLE' });
    expect(bounded.SIMPLE).toBeCloseTo(1);
    expect(bounded.EXPERT).toBe(0);
  });

  it('returns the same probabilities without bounds', () => {
    expect(applyTierBounds(probabilities, {})).toBe(probabilities);
  });
});
