import { describe, expect, it } from 'vitest';
import type { AttemptWatchdog } from './attempt-watchdog.js';
import { createEventReader } from './event-reader.js';

function setup() {
  const chunks: boolean[] = [];
  const watchdog: AttemptWatchdog = {
    onHeaders: () => undefined,
    onPause: () => undefined,
    onResume: () => undefined,
    onChunk: (content) => chunks.push(content),
    reason: () => undefined,
    stop: () => undefined,
  };
  return { reader: createEventReader({ watchdog, deploymentId: 'd1' }), chunks };
}

const frame = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`;
const role = { choices: [{ index: 0, delta: { role: 'assistant' } }] };
const content = (text: string) => ({ choices: [{ index: 0, delta: { content: text } }] });
const finish = { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] };

describe('the upstream event reader', () => {
  it('parses events split across reads, marks the first content and tells the watchdog', () => {
    const { reader, chunks } = setup();
    const whole = Buffer.from(frame(role) + frame(content('Hi')) + frame(content('!')));
    const first = reader.push(whole.subarray(0, 40));
    const rest = reader.push(whole.subarray(40));
    const events = [...first.events, ...rest.events];
    expect(events.map((event) => event.firstContent)).toEqual([false, true, false]);
    expect(chunks).toEqual([false, true, true]);
  });

  it('keeps a multi-byte character split between two reads intact', () => {
    const { reader } = setup();
    const bytes = Buffer.from(frame(content('안녕')));
    const cut = bytes.indexOf(Buffer.from('안')) + 1;
    const events = [
      ...reader.push(bytes.subarray(0, cut)).events,
      ...reader.push(bytes.subarray(cut)).events,
    ];
    expect(events[0]?.chunk.choices?.[0]?.delta?.content).toBe('안녕');
  });

  it('ends at [DONE] and ignores what follows', () => {
    const { reader } = setup();
    reader.push(Buffer.from(frame(content('a')) + 'data: [DONE]\n\n'));
    expect(reader.done()).toBe(true);
    expect(reader.push(Buffer.from(frame(content('late')))).events).toEqual([]);
    expect(reader.finish()).toBeUndefined();
  });

  it('accepts a body that ends without [DONE] once every choice finished, and reports a cut otherwise', () => {
    const finished = setup().reader;
    finished.push(Buffer.from(frame(content('a')) + frame(finish)));
    expect(finished.finish()).toBeUndefined();
    const cut = setup().reader;
    cut.push(Buffer.from(frame(content('a'))));
    expect(cut.finish()?.code).toBe('UPSTREAM_STREAM_CUT');
  });

  it('calls a chunk malformed when its choices or a delta have the wrong shape (an upstream is not trusted)', () => {
    for (const chunk of [
      '{"choices":[null]}',
      '{"choices":"x"}',
      '{"choices":[{"delta":"x"}]}',
      '{"choices":[{"delta":null}]}',
    ]) {
      const { events, error } = setup().reader.push(Buffer.from(frame(content('ok')) + `data: ${chunk}\n\n`));
      expect(events, chunk).toHaveLength(1);
      expect(error?.code, chunk).toBe('UPSTREAM_MALFORMED');
    }
    const fine = setup().reader.push(Buffer.from('data: {"choices":null,"usage":{"prompt_tokens":1}}\n\n'));
    expect(fine.error).toBeUndefined();
  });

  it('returns the good events with the error of a malformed chunk or an in-stream error', () => {
    const malformed = setup().reader.push(Buffer.from(frame(content('ok')) + 'data: {"choices": [\n\n'));
    expect(malformed.events).toHaveLength(1);
    expect(malformed.error?.code).toBe('UPSTREAM_MALFORMED');
    const failed = setup().reader.push(Buffer.from(frame({ error: { message: 'overloaded' } })));
    expect(failed.error?.code).toBe('UPSTREAM_SERVER_ERROR');
  });

  it('reports an in-stream error nested 100,000 deep as an upstream error, without a stack overflow', () => {
    const deep = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    const result = setup().reader.push(Buffer.from(`data: {"error":${deep}}\n\n`));
    expect(result.error?.code).toBe('UPSTREAM_SERVER_ERROR');
    expect(result.error?.message).toContain('nested too deeply');
  });

  it('stops an event that never ends once it passes 8 Mi characters', () => {
    const { reader } = setup();
    const piece = Buffer.from(`data: "${'x'.repeat(1024 * 1024)}`);
    let error;
    for (let read = 0; read < 10 && error === undefined; read += 1) error = reader.push(piece).error;
    expect(error?.code).toBe('UPSTREAM_MALFORMED');
    expect(error?.message).toContain('longer than 8388608 characters');
  });

  it('masks the deployment key in an in-stream error', () => {
    const watchdog: AttemptWatchdog = {
      onHeaders: () => undefined,
      onPause: () => undefined,
      onResume: () => undefined,
      onChunk: () => undefined,
      reason: () => undefined,
      stop: () => undefined,
    };
    const reader = createEventReader({ watchdog, deploymentId: 'd1', secrets: ['vllm-key-42'] });
    const result = reader.push(Buffer.from(frame({ error: { message: 'bad key vllm-key-42' } })));
    expect(result.error?.message).toContain('bad key ***');
  });
});
