import { describe, expect, it } from 'vitest';
import { retrySchema } from '../config/table-part-schemas.js';
import { attempt, candidate } from '../../test/helpers/balance-fixtures.js';
import { decideAfterRound, type AfterRoundInput } from './decide-after-round.js';
import { NO_FAILURES } from './note-failure.js';

const retry = retrySchema.parse({
  max_attempts: 4,
  backoff_base_ms: 100,
  backoff_max_ms: 1000,
  retry_after_cap_ms: 3000,
});
const only = candidate('a', { groupSize: 1 });

function input(overrides: Partial<AfterRoundInput> = {}): AfterRoundInput {
  return {
    tier: 'SIMPLE',
    attempts: [attempt('a', 'UPSTREAM_RATE_LIMITED')],
    calls: 1,
    notes: { ...NO_FAILURES, retryable: [only] },
    round: 0,
    retry,
    random: () => 0.5,
    now: 0,
    deadlineAt: 4000,
    ...overrides,
  };
}

const errorOf = (overrides: Partial<AfterRoundInput>) => {
  const decision = decideAfterRound(input(overrides));
  if (!('error' in decision)) throw new Error(`expected an error, got a wait of ${decision.wait} ms`);
  return decision.error;
};

describe('decideAfterRound', () => {
  it('waits a jittered backoff that grows with the round before retrying a rate-limited only deployment', () => {
    expect(decideAfterRound(input())).toEqual({ wait: 50 });
    expect(decideAfterRound(input({ round: 2 }))).toEqual({ wait: 200 });
  });

  it('waits at least the Retry-After', () => {
    const notes = { ...NO_FAILURES, retryable: [only], retryAfterSeconds: 1 };
    expect(decideAfterRound(input({ notes }))).toEqual({ wait: 1000 });
  });

  it('gives up with 503 and passes Retry-After on when it is above retry_after_cap_ms', () => {
    const error = errorOf({ notes: { ...NO_FAILURES, retryable: [only], retryAfterSeconds: 30 } });
    expect(error).toMatchObject({ code: 'ALL_DEPLOYMENTS_FAILED', retryAfterSeconds: 30 });
  });

  it('gives up when the wait would end at or after the deadline', () => {
    const notes = { ...NO_FAILURES, retryable: [only], retryAfterSeconds: 1 };
    expect(errorOf({ notes, now: 3000 }).code).toBe('ALL_DEPLOYMENTS_FAILED');
    expect(decideAfterRound(input({ notes, now: 2999 }))).toEqual({ wait: 1000 });
  });

  it('gives up once max_attempts calls were made', () => {
    expect(errorOf({ calls: 4 }).code).toBe('ALL_DEPLOYMENTS_FAILED');
  });

  it('names every attempt of a request where nothing is left to retry', () => {
    const attempts = [attempt('a', 'UPSTREAM_SERVER_ERROR'), attempt('b', 'COOLING_DOWN', false)];
    expect(errorOf({ attempts, notes: NO_FAILURES }).message).toBe(
      'all deployments for tier SIMPLE failed: a: UPSTREAM_SERVER_ERROR (upstream_server_error); b: COOLING_DOWN (cooling_down)',
    );
    expect(errorOf({ attempts: [], notes: NO_FAILURES }).message).toContain('no eligible deployment');
  });

  it('ends with the context-length error when the last attempt was rejected for length', () => {
    const error = errorOf({ attempts: [attempt('a', 'UPSTREAM_CONTEXT_LENGTH')], notes: NO_FAILURES });
    expect(error).toMatchObject({ code: 'UPSTREAM_CONTEXT_LENGTH', status: 400 });
    expect(error.message).toContain('no deployment with a larger context window is left');
  });
});
