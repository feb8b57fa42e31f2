import { describe, expect, it } from 'vitest';
import { RouterError, type ErrorCode } from '../shared/errors.js';
import type { ChatChunk } from '../upstream/chat-chunk.js';
import type { UpstreamEvent } from '../upstream/upstream.js';
import { noteDelivered, planContinuation, toDeliveredAnswer } from './delivered-answer.js';

const event = (chunk: ChatChunk): UpstreamEvent => ({
  data: JSON.stringify(chunk),
  chunk,
  firstContent: false,
});
const delta = (fields: Record<string, unknown>, index = 0): UpstreamEvent =>
  event({ id: 'chatcmpl-1', created: 7, model: 'm', choices: [{ index, delta: fields }] });
const broke = (code: ErrorCode = 'UPSTREAM_STREAM_CUT'): RouterError =>
  new RouterError({ code, message: code, retryable: true });

function delivered(...events: UpstreamEvent[]) {
  const answer = toDeliveredAnswer();
  noteDelivered(answer, events);
  return answer;
}

describe('what a broken answer can be continued from', () => {
  it('the answer text so far, with one token per content event when no usage came', () => {
    const answer = delivered(
      delta({ role: 'assistant', content: '' }),
      delta({ content: 'Hello' }),
      delta({ content: ' world' }),
    );
    expect(answer.identity).toEqual({ id: 'chatcmpl-1', created: 7, model: 'm' });
    expect(planContinuation(answer, broke())).toEqual({
      kind: 'continue',
      prefix: 'Hello world',
      completionTokens: 2,
    });
  });

  it('every kind of stream break, and nothing else', () => {
    const answer = delivered(delta({ content: 'Hello' }));
    for (const code of [
      'UPSTREAM_STREAM_CUT',
      'UPSTREAM_IDLE_TIMEOUT',
      'UPSTREAM_MALFORMED',
      'UPSTREAM_SERVER_ERROR',
    ] as const)
      expect(planContinuation(answer, broke(code)).kind).toBe('continue');
    for (const code of ['DEADLINE_EXCEEDED', 'CLIENT_CLOSED'] as const)
      expect(planContinuation(answer, broke(code)).kind).toBe('unsound');
  });

  it('reasoning tokens count as spent; the prefix is the answer text only', () => {
    const answer = delivered(
      delta({ reasoning_content: 'think' }),
      delta({ reasoning_content: ' more' }),
      delta({ content: 'Yes' }),
    );
    expect(planContinuation(answer, broke())).toEqual({
      kind: 'continue',
      prefix: 'Yes',
      completionTokens: 3,
    });
  });

  it('not inside reasoning, in its own field or inline', () => {
    expect(planContinuation(delivered(delta({ reasoning_content: 'think' })), broke())).toEqual({
      kind: 'unsound',
      reason: 'inside reasoning',
    });
    expect(planContinuation(delivered(delta({ content: '<think>\nhmm' })), broke()).kind).toBe('unsound');
    expect(planContinuation(delivered(delta({ content: '<think>\nhmm\n</think>\n\n' })), broke()).kind).toBe(
      'unsound',
    );
  });

  it('after an inline think block, from the answer part', () => {
    const answer = delivered(
      delta({ content: '<think>\nhmm\n</think>\n\n' }),
      delta({ content: 'The answer' }),
    );
    expect(planContinuation(answer, broke())).toMatchObject({ kind: 'continue', prefix: 'The answer' });
  });

  it('a "<think>" quoted inside an answer is answer text', () => {
    const answer = delivered(delta({ content: 'Use a <think> tag' }));
    expect(planContinuation(answer, broke())).toMatchObject({
      kind: 'continue',
      prefix: 'Use a <think> tag',
    });
  });

  it('not inside a tool call, with several choices, or after the answer finished', () => {
    const tool = delivered(
      delta({ content: 'Let me look.' }),
      delta({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
    );
    expect(planContinuation(tool, broke())).toEqual({ kind: 'unsound', reason: 'inside a tool call' });
    const several = delivered(delta({ content: 'a' }), delta({ content: 'b' }, 1));
    expect(planContinuation(several, broke())).toEqual({ kind: 'unsound', reason: 'several choices' });
    const finished = delivered(
      delta({ content: 'a' }),
      event({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    );
    expect(planContinuation(finished, broke()).kind).toBe('unsound');
  });

  it('reported usage wins over the event count', () => {
    const answer = delivered(
      delta({ content: 'abc' }),
      event({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 9, total_tokens: 12 } }),
    );
    expect(planContinuation(answer, broke())).toMatchObject({ completionTokens: 9 });
  });
});
