import { describe, expect, it } from 'vitest';
import { toNeighbourConfusion } from '../../src/classify/combine-with-verdict.js';
import type { Tier } from '../../src/shared/tier.js';
import {
  formatCascadeCurve,
  toCascadeChoice,
  toCascadeCurve,
  type CurveItem,
} from '../../eval/cascade-curve.js';

const calibration = { confusion: toNeighbourConfusion(0.87), localWeight: 1, underPenalty: 1 };
const llmRule = { disagreement: 'llm' as const, calibration };

function item(gold: Tier, local: Tier, confidence: number, verdict: Tier | undefined): CurveItem {
  const probabilities = { SIMPLE: 0, MODERATE: 0, COMPLEX: 0, EXPERT: 0, [local]: confidence };
  return { gold, local: { tier: local, probabilities, confidence }, verdict };
}

describe('the cascade curve', () => {
  const items = [
    item('SIMPLE', 'SIMPLE', 0.9, 'SIMPLE'),
    item('COMPLEX', 'MODERATE', 0.5, 'COMPLEX'),
    item('EXPERT', 'COMPLEX', 0.3, 'EXPERT'),
    item('MODERATE', 'SIMPLE', 0.4, undefined),
  ];

  it('asks the LLM below the threshold and scores exact, under, over and LLM share per threshold', () => {
    const [none, some, all] = toCascadeCurve(items, [0, 0.45, 1], llmRule);
    expect(none).toEqual({ threshold: 0, exact: 0.25, under: 0.75, over: 0, llmShare: 0 });
    // 0.3 and 0.4 asked: EXPERT right, the failed call falls back one tier up (MODERATE, right)
    expect(some).toEqual({ threshold: 0.45, exact: 0.75, under: 0.25, over: 0, llmShare: 0.5 });
    expect(all).toEqual({ threshold: 1, exact: 1, under: 0, over: 0, llmShare: 1 });
  });

  it('decides each prompt by the cascade rules of the configured combination', () => {
    const torn = item('MODERATE', 'MODERATE', 0.5, 'COMPLEX');
    expect(toCascadeChoice(torn, 0.6, { disagreement: 'round_up', calibration })).toBe('COMPLEX');
    expect(toCascadeChoice(torn, 0.6, { disagreement: 'local', calibration })).toBe('MODERATE');
    expect(toCascadeChoice(torn, 0.4, llmRule)).toBe('MODERATE');
  });

  it('formats one line per threshold with percentages', () => {
    const text = formatCascadeCurve('title', toCascadeCurve(items, [0.45], llmRule));
    expect(text.split('\n')).toEqual([
      'title',
      'threshold   exact   under    over  LLM share',
      '     0.45   75.0%   25.0%    0.0%   50.0%',
    ]);
  });
});
