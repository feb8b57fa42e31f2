import { describe, expect, it } from 'vitest';
import type { ChatChunk } from '../upstream/chat-chunk.js';
import type { UpstreamEvent } from '../upstream/upstream.js';
import { noteDelivered, toDeliveredAnswer } from './delivered-answer.js';
import { addUsage, relabelContinuation, type ContinuationRecord } from './relabel-continuation.js';

const event = (chunk: ChatChunk): UpstreamEvent => ({
  data: JSON.stringify(chunk),
  chunk,
  firstContent: false,
});
const record: ContinuationRecord = {
  from: 'a',
  to: 'b',
  model: 'm-b',
  reason: 'upstream_stream_cut',
  delivered_tokens: 2,
};

function input() {
  const delivered = toDeliveredAnswer();
  noteDelivered(delivered, [
    event({
      id: 'chatcmpl-first',
      created: 1,
      model: 'm-a',
      choices: [{ index: 0, delta: { content: 'Hi' } }],
    }),
  ]);
  return {
    delivered,
    earlierUsage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
    records: [record],
  };
}

describe("a continuation leg's events, relabelled as the first leg's answer", () => {
  it("takes the first leg's id, created and model, and drops the second role delta", () => {
    const out = relabelContinuation(
      [
        event({
          id: 'chatcmpl-second',
          created: 2,
          model: 'm-b',
          choices: [{ index: 0, delta: { role: 'assistant', content: '' } }],
        }),
        event({
          id: 'chatcmpl-second',
          created: 2,
          model: 'm-b',
          choices: [{ index: 0, delta: { content: ' there' } }],
        }),
      ],
      input(),
    );
    expect(out).toHaveLength(1);
    expect(out[0]?.chunk).toEqual({
      id: 'chatcmpl-first',
      created: 1,
      model: 'm-a',
      choices: [{ index: 0, delta: { content: ' there' } }],
    });
    expect(JSON.parse(out[0]?.data ?? '')).toEqual(out[0]?.chunk);
  });

  it('sums the usage and names the switch on the finishing chunk and the usage chunk', () => {
    const out = relabelContinuation(
      [
        event({ id: 'x', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
        event({ id: 'x', choices: [], usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 } }),
      ],
      input(),
    );
    expect(out.map((entry) => entry.chunk['autotier'])).toEqual([
      { continuations: [record] },
      { continuations: [record] },
    ]);
    expect(out[1]?.chunk.usage).toEqual({ prompt_tokens: 22, completion_tokens: 7, total_tokens: 29 });
  });

  it('keeps fields it does not know', () => {
    expect(
      addUsage(
        { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, prompt_tokens_details: null },
      ),
    ).toEqual({
      prompt_tokens: 2,
      completion_tokens: 2,
      total_tokens: 4,
      prompt_tokens_details: null,
    });
  });
});
