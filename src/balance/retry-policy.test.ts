import { describe, expect, it } from 'vitest';
import { toBackoffMs } from './retry-policy.js';

const base = { round: 0, baseMs: 100, maxMs: 2000, retryAfterSeconds: undefined, retryAfterCapMs: 5000 };

describe('toBackoffMs', () => {
  it('draws the wait uniformly below base * 2^round (full jitter)', () => {
    expect(toBackoffMs({ ...base, round: 3, random: () => 0.5 })).toBe(400);
    expect(toBackoffMs({ ...base, round: 3, random: () => 0 })).toBe(0);
  });

  it('never exceeds backoff_max_ms', () => {
    expect(toBackoffMs({ ...base, round: 20, random: () => 0.999 })).toBeLessThan(2000);
  });

  it('waits at least the Retry-After', () => {
    expect(toBackoffMs({ ...base, retryAfterSeconds: 2, random: () => 0.5 })).toBe(2000);
  });

  it('gives up when Retry-After is above the cap', () => {
    expect(toBackoffMs({ ...base, retryAfterSeconds: 30, random: () => 0.5 })).toBeUndefined();
  });
});
