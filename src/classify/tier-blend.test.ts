import { describe, expect, it } from 'vitest';
import { TIERS } from '../shared/tier.js';
import { applyBlend } from './tier-blend.js';

const learned = { SIMPLE: 0.1, MODERATE: 0.6, COMPLEX: 0.2, EXPERT: 0.1 };
const heuristic = { SIMPLE: 0.05, MODERATE: 0.15, COMPLEX: 0.7, EXPERT: 0.1 };
/** Identity on one source's log-probabilities, zero on the other. */
const follow = (source: 0 | 1): number[] =>
  Array.from({ length: 32 }, (_, cell) => {
    const row = Math.floor(cell / 4);
    return row >= source * 4 && row < source * 4 + 4 && row % 4 === cell % 4 ? 1 : 0;
  });

describe('tier blend', () => {
  it('returns one source unchanged when it weighs only that source', () => {
    const blended = applyBlend({ weights: follow(0), bias: [0, 0, 0, 0] }, { learned, heuristic });
    for (const tier of TIERS) expect(blended[tier]).toBeCloseTo(learned[tier], 9);
  });
});
