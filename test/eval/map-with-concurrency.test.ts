import { describe, expect, it } from 'vitest';
import { mapWithConcurrency } from '../../eval/map-with-concurrency.js';

describe('mapWithConcurrency', () => {
  it('keeps input order and never exceeds the limit', async () => {
    let inFlight = 0;
    let peak = 0;
    const settled: number[] = [];
    const results = await mapWithConcurrency(
      [30, 5, 20, 1, 10, 2],
      async (delay, index) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, delay));
        inFlight -= 1;
        return index * 10;
      },
      { limit: 2, onSettled: (done) => settled.push(done) },
    );
    expect(results).toEqual([0, 10, 20, 30, 40, 50]);
    expect(peak).toBe(2);
    expect(settled).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('rejects with the first failure and stops starting new items', async () => {
    const started: number[] = [];
    const run = mapWithConcurrency(
      [1, 2, 3, 4],
      (item) => {
        started.push(item);
        return item === 2 ? Promise.reject(new Error('boom')) : Promise.resolve(item);
      },
      { limit: 1 },
    );
    await expect(run).rejects.toThrow('boom');
    expect(started).toEqual([1, 2]);
  });

  it('returns an empty list for no items', async () => {
    await expect(mapWithConcurrency([], () => Promise.resolve(1), { limit: 4 })).resolves.toEqual([]);
  });
});
