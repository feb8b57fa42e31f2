import { describe, expect, it } from 'vitest';
import { toNeighbourConfusion } from '../../src/classify/combine-with-verdict.js';
import type { Tier } from '../../src/shared/tier.js';
import {
  formatCascadeCurve,
  toCascadeChoice,
  toCascadeCurve,
  type CurveItem,
  type CurveRules,
} from '../../eval/cascade-curve.js';

const calibration = { confusion: toNeighbourConfusion(0.87), localWeight: 1, underPenalty: 1 };
const llmRule: CurveRules = {
  gate: 'confidence',
  combination: { disagreement: 'llm', calibration },
  threshold: 0.6,
};

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
    const asking = { by: 'confidence' as const, threshold: 0.6 };
    const rule = (disagreement: 'round_up' | 'local'): CurveRules => ({
      ...llmRule,
      combination: { disagreement, calibration },
    });
    expect(toCascadeChoice(torn, asking, rule('round_up'))).toBe('COMPLEX');
    expect(toCascadeChoice(torn, asking, rule('local'))).toBe('MODERATE');
    expect(toCascadeChoice(torn, { by: 'confidence', threshold: 0.4 }, llmRule)).toBe('MODERATE');
    // a failed call rounds up only below classifier.threshold
    const failed = item('MODERATE', 'MODERATE', 0.5, undefined);
    expect(toCascadeChoice(failed, asking, llmRule)).toBe('COMPLEX');
    expect(toCascadeChoice(failed, asking, { ...llmRule, threshold: 0.5 })).toBe('MODERATE');
  });

  it('with the value gate, asks about the requests where a verdict can change a costly decision', () => {
    const valueRule: CurveRules = {
      gate: 'value',
      combination: { disagreement: 'calibrated', calibration },
      threshold: 0.6,
    };
    const sure = {
      gold: 'SIMPLE' as const,
      local: {
        tier: 'SIMPLE' as const,
        probabilities: { SIMPLE: 0.98, MODERATE: 0.01, COMPLEX: 0.005, EXPERT: 0.005 },
        confidence: 0.98,
      },
      verdict: 'SIMPLE' as const,
    };
    const torn = {
      gold: 'COMPLEX' as const,
      local: {
        tier: 'MODERATE' as const,
        probabilities: { SIMPLE: 0.05, MODERATE: 0.5, COMPLEX: 0.4, EXPERT: 0.05 },
        confidence: 0.5,
      },
      verdict: 'COMPLEX' as const,
    };
    const [low, high] = toCascadeCurve([sure, torn], [0.05, 5], valueRule);
    expect(low).toMatchObject({ llmShare: 0.5, exact: 1 });
    expect(high).toMatchObject({ llmShare: 0, exact: 0.5, under: 0.5 });
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
