import { describe, expect, it } from 'vitest';
import { orderGroup, weightedShuffle } from './order-group.js';

const members = [
  { id: 'a', weight: 1 },
  { id: 'b', weight: 3 },
];

function sequence(values: number[]): () => number {
  let index = 0;
  return () => values[index++ % values.length] ?? 0;
}

describe('orderGroup', () => {
  it('puts heavier deployments first in proportion to their weight', () => {
    let bFirst = 0;
    const random = sequence([0.05, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 0.99]);
    for (let index = 0; index < 8; index += 1) if (weightedShuffle(members, random)[0] === 'b') bFirst += 1;
    expect(bFirst).toBe(6);
  });

  it('returns every member exactly once', () => {
    expect(weightedShuffle(members, () => 0.7).sort()).toEqual(['a', 'b']);
  });

  it('least_busy puts the deployment with fewer requests in flight first', () => {
    const order = orderGroup({
      members,
      strategy: 'least_busy',
      random: () => 0.99,
      inFlight: new Map([
        ['b', 5],
        ['a', 1],
      ]),
      latencies: new Map(),
    });
    expect(order).toEqual(['a', 'b']);
  });

  it('latency puts untried deployments first, then the lowest EWMA', () => {
    const three = [...members, { id: 'c', weight: 1 }];
    const order = orderGroup({
      members: three,
      strategy: 'latency',
      random: () => 0,
      inFlight: new Map(),
      latencies: new Map([
        ['a', 300],
        ['b', 100],
      ]),
    });
    expect(order).toEqual(['c', 'b', 'a']);
  });
});
