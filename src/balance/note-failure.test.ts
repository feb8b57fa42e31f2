import { describe, expect, it } from 'vitest';
import { candidate, failure } from '../../test/helpers/balance-fixtures.js';
import { NO_FAILURES, noteFailure } from './note-failure.js';

describe('noteFailure', () => {
  it('ends the request on a failure that is not retryable, or when the client left or autotier is stopping', () => {
    const badRequest = failure('UPSTREAM_BAD_REQUEST', { retryable: false });
    expect(() => noteFailure(NO_FAILURES, candidate('a'), badRequest)).toThrow(badRequest);
    const closed = failure('CLIENT_CLOSED', { retryable: true });
    expect(() => noteFailure(NO_FAILURES, candidate('a'), closed)).toThrow(closed);
    const shuttingDown = failure('SHUTTING_DOWN', { retryable: true });
    expect(() => noteFailure(NO_FAILURES, candidate('a'), shuttingDown)).toThrow(shuttingDown);
  });

  it('raises the minimum context window after a context-length rejection, never lowers it', () => {
    const small = candidate('small');
    const once = noteFailure(NO_FAILURES, small, failure('UPSTREAM_CONTEXT_LENGTH'));
    expect(once.minimumWindow).toBe(32_768);
    const lower = { ...small, deployment: { ...small.deployment, context_window: 8192 } };
    expect(noteFailure(once, lower, failure('UPSTREAM_CONTEXT_LENGTH')).minimumWindow).toBe(32_768);
  });

  it("keeps a group's only deployment that answered 429 for another round, with the largest Retry-After", () => {
    const only = candidate('a', { groupSize: 1 });
    const first = noteFailure(NO_FAILURES, only, failure('UPSTREAM_RATE_LIMITED', { retryAfterSeconds: 2 }));
    const second = noteFailure(first, only, failure('UPSTREAM_RATE_LIMITED', { retryAfterSeconds: 1 }));
    expect(second.retryable).toEqual([only, only]);
    expect(second.retryAfterSeconds).toBe(2);
  });

  it('keeps no 429 of a deployment with alternatives, and nothing of other failures', () => {
    expect(noteFailure(NO_FAILURES, candidate('a'), failure('UPSTREAM_RATE_LIMITED'))).toBe(NO_FAILURES);
    expect(noteFailure(NO_FAILURES, candidate('a', { groupSize: 1 }), failure('UPSTREAM_SERVER_ERROR'))).toBe(
      NO_FAILURES,
    );
  });
});
