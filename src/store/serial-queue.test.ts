import { describe, expect, it } from 'vitest';
import { createSerialQueue } from './serial-queue.js';

describe('createSerialQueue', () => {
  it('runs each task only after the one before it settled, in the order given', async () => {
    const inTurn = createSerialQueue();
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = inTurn(async () => {
      events.push('first starts');
      await gate;
      events.push('first ends');
      return 1;
    });
    const second = inTurn(() => {
      events.push('second runs');
      return Promise.resolve(2);
    });
    await Promise.resolve();
    expect(events).toEqual(['first starts']);
    release();
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(events).toEqual(['first starts', 'first ends', 'second runs']);
  });

  it('goes on to the next task after one fails', async () => {
    const inTurn = createSerialQueue();
    const failed = inTurn(() => Promise.reject(new Error('boom')));
    const next = inTurn(() => Promise.resolve('next'));
    await expect(failed).rejects.toThrow('boom');
    expect(await next).toBe('next');
  });
});
