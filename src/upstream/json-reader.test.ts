import { describe, expect, it } from 'vitest';
import type { AttemptWatchdog } from './attempt-watchdog.js';
import { createJsonReader } from './json-reader.js';

function watchdog(): AttemptWatchdog & { chunks: boolean[] } {
  const chunks: boolean[] = [];
  return {
    chunks,
    onHeaders: () => undefined,
    onPause: () => undefined,
    onResume: () => undefined,
    onChunk: (content) => chunks.push(content),
    reason: () => undefined,
    stop: () => undefined,
  };
}

describe('the JSON answer reader', () => {
  it('gives one content event at the end of the body, its usage normalized', () => {
    const dog = watchdog();
    const reader = createJsonReader({ watchdog: dog, deploymentId: 'd' });
    const text = JSON.stringify({ object: 'list', data: [], usage: { prompt_tokens: 5, total_tokens: 5 } });
    expect(reader.push(Buffer.from(text.slice(0, 10))).events).toEqual([]);
    expect(reader.push(Buffer.from(text.slice(10))).events).toEqual([]);
    const end = reader.end?.();
    expect(end?.events).toHaveLength(1);
    expect(end?.events[0]?.firstContent).toBe(true);
    expect(end?.events[0]?.chunk.usage).toEqual({ prompt_tokens: 5, completion_tokens: 0, total_tokens: 5 });
    expect(dog.chunks).toEqual([true]);
    expect(reader.finish()).toBeUndefined();
  });

  it('fails as UPSTREAM_MALFORMED on bad JSON, a non-object, a body past the cap or a body never ended', () => {
    const read = (text: string, maxBytes?: number) => {
      const reader = createJsonReader({
        watchdog: watchdog(),
        deploymentId: 'd',
        ...(maxBytes === undefined ? {} : { maxBytes }),
      });
      const pushed = reader.push(Buffer.from(text));
      return pushed.error ?? reader.end?.().error;
    };
    expect(read('{"data": [')?.code).toBe('UPSTREAM_MALFORMED');
    expect(read('[1, 2]')?.message).toContain('not a JSON object');
    expect(read('{"a": 1}', 4)?.message).toContain('longer than 4 bytes');
    const unended = createJsonReader({ watchdog: watchdog(), deploymentId: 'd' });
    unended.push(Buffer.from('{}'));
    expect(unended.finish()?.code).toBe('UPSTREAM_MALFORMED');
  });
});
