import { describe, expect, it } from 'vitest';
import { EXCERPT_CHARS, toExcerpt, toWorstMisroutes } from '../../eval/worst-misroutes.js';
import { toScoredCases } from './scored-case-fixture.js';

describe('toWorstMisroutes', () => {
  const cases = toScoredCases([
    { id: 'ok', gold: 'SIMPLE', predicted: 'SIMPLE' },
    { id: 'over1', gold: 'SIMPLE', predicted: 'MODERATE', decision: { confidence: 0.9 } },
    { id: 'under1-low', gold: 'COMPLEX', predicted: 'MODERATE', decision: { confidence: 0.4 } },
    { id: 'under1-high', gold: 'MODERATE', predicted: 'SIMPLE', decision: { confidence: 0.8 } },
    { id: 'over2', gold: 'SIMPLE', predicted: 'COMPLEX', decision: { signals: ['code_block'] } },
    { id: 'under2', gold: 'EXPERT', predicted: 'MODERATE' },
    { id: 'under1-tie', gold: 'EXPERT', predicted: 'COMPLEX', decision: { confidence: 0.4 } },
  ]);

  it('orders by distance, then under before over, then confidence, then file order', () => {
    expect(toWorstMisroutes(cases, 10).map((miss) => miss.id)).toEqual([
      'under2',
      'over2',
      'under1-high',
      'under1-low',
      'under1-tie',
      'over1',
    ]);
  });

  it('keeps the signals and the direction, and stops at the limit', () => {
    const [first, second] = toWorstMisroutes(cases, 2);
    expect(first).toMatchObject({
      id: 'under2',
      gold: 'EXPERT',
      predicted: 'MODERATE',
      distance: 2,
      direction: 'under',
    });
    expect(second).toMatchObject({ id: 'over2', direction: 'over', signals: ['code_block'] });
    expect(toWorstMisroutes(cases, 0)).toEqual([]);
  });
});

describe('toExcerpt', () => {
  it('shows the last user message, whitespace folded, cut to a fixed length', () => {
    const [scored] = toScoredCases([
      { gold: 'SIMPLE', predicted: 'SIMPLE', prompt: `a\n\n b ${'x'.repeat(500)}` },
    ]);
    const excerpt = toExcerpt(scored!.case);
    expect(excerpt.startsWith('a b xxx')).toBe(true);
    expect(excerpt).toHaveLength(EXCERPT_CHARS);
    expect(excerpt.endsWith('…')).toBe(true);
  });

  it('reads text parts and skips the assistant turns after the last user message', () => {
    const evalCase = {
      ...toScoredCases([{ gold: 'SIMPLE', predicted: 'SIMPLE' }])[0]!.case,
      request: {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look at this' },
              { type: 'image_url', image_url: { url: 'x' } },
            ],
          },
          { role: 'assistant', content: 'sure' },
        ],
      },
    };
    expect(toExcerpt(evalCase)).toBe('look at this');
  });
});
