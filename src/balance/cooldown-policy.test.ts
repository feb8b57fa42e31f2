import { describe, expect, it } from 'vitest';
import { RouterError, type ErrorCode } from '../shared/errors.js';
import { decideCooldown } from './cooldown-policy.js';

const base = { groupSize: 2, previousFailures: 0, cooldownMs: 5000, maxCooldownMs: 60_000, now: 1000 };
const error = (code: ErrorCode, retryAfterSeconds?: number): RouterError =>
  new RouterError({ code, message: code, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) });

describe('decideCooldown', () => {
  it('benches for the configured cooldown on a 5xx', () => {
    expect(decideCooldown({ ...base, error: error('UPSTREAM_SERVER_ERROR') })).toEqual({
      until: 6000,
      reason: 'UPSTREAM_SERVER_ERROR',
      failures: 1,
    });
  });

  it('uses Retry-After when the upstream gives one', () => {
    expect(decideCooldown({ ...base, error: error('UPSTREAM_RATE_LIMITED', 12) })?.until).toBe(13_000);
  });

  it('caps a huge Retry-After at max_cooldown_ms', () => {
    expect(decideCooldown({ ...base, error: error('UPSTREAM_RATE_LIMITED', 3600) })?.until).toBe(61_000);
  });

  it("does not bench a group's only deployment for a 429", () => {
    expect(
      decideCooldown({ ...base, groupSize: 1, error: error('UPSTREAM_RATE_LIMITED', 1) }),
    ).toBeUndefined();
  });

  it("still benches a group's only deployment for a 5xx", () => {
    expect(decideCooldown({ ...base, groupSize: 1, error: error('UPSTREAM_SERVER_ERROR') })).toBeDefined();
  });

  it('doubles the cooldown for each consecutive failure', () => {
    expect(decideCooldown({ ...base, previousFailures: 2, error: error('UPSTREAM_TTFT_TIMEOUT') })).toEqual({
      until: 21_000,
      reason: 'UPSTREAM_TTFT_TIMEOUT',
      failures: 3,
    });
  });

  for (const code of [
    'UPSTREAM_BAD_REQUEST',
    'UPSTREAM_CONTEXT_LENGTH',
    'CLIENT_CLOSED',
    'SHUTTING_DOWN',
    'DEADLINE_EXCEEDED',
  ] as const) {
    it(`never benches for ${code}`, () => {
      expect(decideCooldown({ ...base, error: error(code) })).toBeUndefined();
    });
  }
});
