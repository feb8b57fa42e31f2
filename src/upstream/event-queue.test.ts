import { describe, expect, it, vi } from 'vitest';
import { createEventQueue } from './event-queue.js';
import type { UpstreamEvent } from './upstream.js';

const event = (data: string): UpstreamEvent => ({ data, chunk: {}, firstContent: false });
const texts = (result: IteratorResult<UpstreamEvent[]>): string[] =>
  result.done === true ? [] : result.value.map((item) => item.data);

function setup(highWater?: number, highWaterChars?: number) {
  const hooks = { pause: vi.fn(), resume: vi.fn(), onClose: vi.fn() };
  const queue = createEventQueue({
    ...hooks,
    ...(highWater === undefined ? {} : { highWater }),
    ...(highWaterChars === undefined ? {} : { highWaterChars }),
  });
  return { queue, hooks, iterator: queue[Symbol.asyncIterator]() };
}

describe('the upstream event queue', () => {
  it('hands events pushed in one turn of the event loop to a waiting reader as one batch', async () => {
    const { queue, iterator } = setup();
    const next = iterator.next();
    queue.push([event('1')]);
    queue.push([event('2'), event('3')]);
    const result = await next;
    expect(texts(result)).toEqual(['1', '2', '3']);
  });

  it('gives queued events first, then the end, and closes once', async () => {
    const { queue, hooks, iterator } = setup();
    queue.push([event('a')]);
    queue.end();
    expect(texts(await iterator.next())).toEqual(['a']);
    expect((await iterator.next()).done).toBe(true);
    expect((await iterator.next()).done).toBe(true);
    expect(hooks.onClose).toHaveBeenCalledTimes(1);
  });

  it('gives the good events before a failure, then throws it', async () => {
    const { queue, iterator } = setup();
    queue.push([event('ok')]);
    queue.fail(new Error('cut'));
    expect(texts(await iterator.next())).toEqual(['ok']);
    await expect(iterator.next()).rejects.toThrow('cut');
  });

  it('wakes a waiting reader with a failure', async () => {
    const { queue, iterator } = setup();
    const next = iterator.next();
    queue.fail(new Error('timeout'));
    await expect(next).rejects.toThrow('timeout');
  });

  it('pauses the producer above the high-water mark and resumes it when the reader catches up', async () => {
    const { queue, hooks, iterator } = setup(2);
    queue.push([event('1'), event('2'), event('3')]);
    expect(hooks.pause).toHaveBeenCalledTimes(1);
    expect(texts(await iterator.next())).toEqual(['1', '2', '3']);
    expect(hooks.resume).toHaveBeenCalledTimes(1);
  });

  it('pauses the producer above the character high-water mark, however few the events', async () => {
    const { queue, hooks, iterator } = setup(4096, 10);
    queue.push([event('x'.repeat(6))]);
    expect(hooks.pause).not.toHaveBeenCalled();
    queue.push([event('y'.repeat(6))]);
    expect(hooks.pause).toHaveBeenCalledTimes(1);
    expect(texts(await iterator.next())).toHaveLength(2);
    expect(hooks.resume).toHaveBeenCalledTimes(1);
    // the count starts again from the batch handed over
    queue.push([event('z'.repeat(6))]);
    expect(hooks.pause).toHaveBeenCalledTimes(1);
  });

  it('drops what is pushed after the reader returned, and closes at once', async () => {
    const { queue, hooks, iterator } = setup();
    queue.push([event('x')]);
    await iterator.return?.();
    expect(hooks.onClose).toHaveBeenCalledTimes(1);
    queue.push([event('y')]);
    expect((await iterator.next()).done).toBe(true);
  });
});
