import { describe, expect, it } from 'vitest';
import { applyBlend, toBlendInputs } from '../src/classify/tier-blend.js';
import { fitBlend } from './blend-fitting.js';

const learned = { SIMPLE: 0.1, MODERATE: 0.6, COMPLEX: 0.2, EXPERT: 0.1 };
const heuristic = { SIMPLE: 0.05, MODERATE: 0.15, COMPLEX: 0.7, EXPERT: 0.1 };

describe('blend fitting', () => {
  it('learns to trust the source that agrees with the labels', () => {
    const inputs = Array.from({ length: 40 }, (_, index) =>
      index % 2 === 0 ? toBlendInputs(learned, heuristic) : toBlendInputs(heuristic, learned),
    );
    const targets = inputs.map((_, index) => (index % 2 === 0 ? [0, 0, 1, 0] : [0, 1, 0, 0]));
    const blend = fitBlend(inputs, targets);
    const blended = applyBlend(blend, { learned, heuristic });
    expect(blended.COMPLEX).toBeGreaterThan(blended.MODERATE);
  });
});
