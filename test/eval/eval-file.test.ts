import { describe, expect, it } from 'vitest';
import { toEvalCase } from '../../eval/eval-case.js';
import { parseEvalFile } from '../../eval/parse-eval-file.js';

const line = (value: Record<string, unknown>): string => JSON.stringify(value);

describe('toEvalCase', () => {
  it('turns a prompt into one user message and keeps the label among the acceptable tiers', () => {
    const result = toEvalCase(line({ id: 'a', prompt: 'hi', label: 'MODERATE', acceptable: ['COMPLEX'] }), 3);
    expect(result).toEqual({
      ok: true,
      value: {
        id: 'a',
        line: 3,
        request: { messages: [{ role: 'user', content: 'hi' }] },
        label: 'MODERATE',
        acceptable: ['MODERATE', 'COMPLEX'],
        facets: {},
      },
    });
  });

  it('keeps an OpenAI messages array with content parts, and the source, lang and kind facets', () => {
    const messages = [
      { role: 'system', content: 'be brief' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url: 'data:x' } },
        ],
      },
    ];
    const result = toEvalCase(
      line({
        id: 'b',
        messages,
        label: 'SIMPLE',
        source: 's',
        lang: 'ko',
        kind: 'image',
        needs_vision: true,
      }),
      1,
    );
    expect(result.ok && result.value.request.messages).toEqual(messages);
    expect(result.ok && result.value.facets).toEqual({ source: 's', lang: 'ko', kind: 'image' });
  });

  it.each([
    ['{"id": "x", "prompt": "hi", "label": "SIMPLE"', /^not JSON/],
    [line({ id: 'x', prompt: 'hi', label: 'EASY' }), /^label: /],
    [line({ id: 'x', label: 'SIMPLE' }), /exactly one of `prompt` or `messages`/],
    [
      line({ id: 'x', prompt: 'hi', messages: [{ role: 'user', content: 'hi' }], label: 'SIMPLE' }),
      /exactly one/,
    ],
    [line({ prompt: 'hi', label: 'SIMPLE' }), /^id: /],
    [line({ id: 'x', prompt: 'hi', label: 'SIMPLE', acceptable: ['HARD'] }), /^acceptable\.0: /],
    [line({ id: 'x', messages: [], label: 'SIMPLE' }), /^messages: /],
    ['[1, 2]', /expected object/],
  ])('rejects %s with a message naming the problem', (text, message) => {
    const result = toEvalCase(text, 1);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(message);
  });
});

describe('parseEvalFile', () => {
  it('reports malformed lines with their line numbers and counts them in the totals', () => {
    const text = [
      line({ id: 'a', prompt: 'one', label: 'SIMPLE' }),
      '',
      'not json',
      line({ id: 'b', prompt: 'two', label: 'WRONG' }),
      line({ id: 'c', prompt: 'three', label: 'EXPERT' }),
      '   ',
    ].join('\n');
    const file = parseEvalFile(text);
    expect(file.cases.map((evalCase) => [evalCase.id, evalCase.line])).toEqual([
      ['a', 1],
      ['c', 5],
    ]);
    expect(file.malformed.map((problem) => problem.line)).toEqual([3, 4]);
    expect(file.lines).toBe(4);
  });

  it('treats a repeated id as malformed and keeps its first line', () => {
    const text = `${line({ id: 'a', prompt: 'one', label: 'SIMPLE' })}\r\n${line({ id: 'a', prompt: 'two', label: 'EXPERT' })}\n`;
    const file = parseEvalFile(text);
    expect(file.cases.map((evalCase) => evalCase.label)).toEqual(['SIMPLE']);
    expect(file.malformed).toEqual([{ line: 2, message: 'duplicate id "a" (first on line 1)' }]);
  });

  it('returns nothing for an empty file', () => {
    expect(parseEvalFile('')).toEqual({ cases: [], malformed: [], lines: 0 });
  });
});
