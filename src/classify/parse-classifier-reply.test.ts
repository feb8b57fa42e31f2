import { describe, expect, it } from 'vitest';
import { parseClassifierReply } from './parse-classifier-reply.js';

describe('parseClassifierReply', () => {
  it('reads a plain JSON verdict', () => {
    expect(parseClassifierReply('{"complexity":"EXPERT","reason":"proof","needs_vision":false}')).toEqual({
      ok: true,
      verdict: { complexity: 'EXPERT', reason: 'proof', needsVision: false },
    });
  });

  it('reads a verdict inside a code fence with prose around it', () => {
    const reply =
      'Sure! Here is my answer:\n```json\n{"complexity": "complex", "reason": "code {with braces}", "needs_vision": "false"}\n```\nHope it helps.';
    expect(parseClassifierReply(reply)).toEqual({
      ok: true,
      verdict: { complexity: 'COMPLEX', reason: 'code {with braces}', needsVision: false },
    });
  });

  it('skips a <think> block, even one that contains JSON', () => {
    const reply =
      '<think>\nmaybe {"complexity":"SIMPLE"}? no.\n</think>\n\n{"complexity":"MODERATE","reason":"summary","needs_vision":false}';
    expect(parseClassifierReply(reply)).toMatchObject({ ok: true, verdict: { complexity: 'MODERATE' } });
  });

  it('skips the reasoning before an unopened </think>', () => {
    expect(parseClassifierReply('thinking {x}</think>{"complexity":"SIMPLE","reason":"hi"}')).toMatchObject({
      ok: true,
      verdict: { complexity: 'SIMPLE', needsVision: false },
    });
  });

  it('rejects invalid JSON', () => {
    expect(parseClassifierReply('{"complexity": EXPERT}')).toEqual({
      ok: false,
      problem: 'the JSON object does not parse',
    });
  });

  it('rejects a tier outside the enum', () => {
    expect(parseClassifierReply('{"complexity":"HARD","reason":"x"}')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('complexity') as unknown,
    });
  });

  it('rejects a reply without JSON', () => {
    expect(parseClassifierReply('I think this is EXPERT.')).toEqual({
      ok: false,
      problem: 'no JSON object in the reply',
    });
  });
});
