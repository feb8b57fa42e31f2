import { describe, expect, it } from 'vitest';
import type { AttemptWatchdog } from './attempt-watchdog.js';
import { hasContent } from './chat-chunk.js';
import { createEventReader } from './event-reader.js';
import { toChunkFromResponseEvent } from './response-event-chunk.js';

const watchdog: AttemptWatchdog = {
  onHeaders: () => undefined,
  onPause: () => undefined,
  onResume: () => undefined,
  onChunk: () => undefined,
  reason: () => undefined,
  stop: () => undefined,
};
const frame = (event: Record<string, unknown>): string =>
  `event: ${String(event['type'])}\ndata: ${JSON.stringify(event)}\n\n`;
const created = {
  type: 'response.created',
  sequence_number: 0,
  response: { id: 'resp_1', model: 'm', created_at: 5 },
};
const delta = { type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_1', delta: 'Hi' };
const completed = {
  type: 'response.completed',
  sequence_number: 2,
  response: { id: 'resp_1', usage: { input_tokens: 7, output_tokens: 3, total_tokens: 10 } },
};

describe('toChunkFromResponseEvent (a Responses event as the chunk the balancer reads)', () => {
  it('reads identity, content, tool calls, usage and the finish reason', () => {
    expect(toChunkFromResponseEvent(created)).toMatchObject({
      id: 'resp_1',
      model: 'm',
      created: 5,
      sequence_number: 0,
    });
    expect(hasContent(toChunkFromResponseEvent(delta))).toBe(true);
    expect(hasContent(toChunkFromResponseEvent({ type: 'response.reasoning_text.delta', delta: 'hm' }))).toBe(
      true,
    );
    expect(
      hasContent(
        toChunkFromResponseEvent({
          type: 'response.output_item.added',
          item: { type: 'function_call', call_id: 'c', name: 'f', arguments: '' },
        }),
      ),
    ).toBe(true);
    expect(
      hasContent(toChunkFromResponseEvent({ type: 'response.output_item.added', item: { type: 'message' } })),
    ).toBe(false);
    expect(toChunkFromResponseEvent(completed)).toMatchObject({
      choices: [{ index: 0, finish_reason: 'stop' }],
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
    });
    expect(
      toChunkFromResponseEvent({
        type: 'response.incomplete',
        response: { incomplete_details: { reason: 'max_output_tokens' } },
      }).choices?.[0]?.finish_reason,
    ).toBe('length');
  });

  it('lets the event reader end a Responses stream at its terminal event (no [DONE]) and call a cut a cut', () => {
    const reader = createEventReader({ watchdog, deploymentId: 'd', protocol: 'responses' });
    const read = reader.push(Buffer.from(frame(created) + frame(delta) + frame(completed)));
    expect(read.events.map((event) => event.firstContent)).toEqual([false, true, false]);
    expect(reader.finish()).toBeUndefined();
    const cut = createEventReader({ watchdog, deploymentId: 'd', protocol: 'responses' });
    cut.push(Buffer.from(frame(created) + frame(delta)));
    expect(cut.finish()?.code).toBe('UPSTREAM_STREAM_CUT');
  });

  it('makes response.failed, an error event or a non-event an attempt failure', () => {
    for (const [text, code] of [
      [
        frame({ type: 'response.failed', response: { error: { code: 'server_error', message: 'x' } } }),
        'UPSTREAM_SERVER_ERROR',
      ],
      [frame({ type: 'error', code: 'server_error', message: 'boom' }), 'UPSTREAM_SERVER_ERROR'],
      ['data: {"choices":[]}\n\n', 'UPSTREAM_MALFORMED'],
      ['data: [1,2]\n\n', 'UPSTREAM_MALFORMED'],
    ] as const) {
      const reader = createEventReader({ watchdog, deploymentId: 'd', protocol: 'responses' });
      expect(reader.push(Buffer.from(text)).error?.code, text).toBe(code);
    }
  });
});
