import { describe, expect, it } from 'vitest';
import { failure } from '../../test/helpers/balance-fixtures.js';
import type { RouterError } from '../shared/errors.js';
import type { UpstreamEvent } from '../upstream/upstream.js';
import type { CommittedAttempt } from './run-attempt.js';
import { toCommittedRest } from './to-committed-rest.js';

/** A committed attempt whose live part throws `error` at once. */
function failingAttempt(error: RouterError): CommittedAttempt {
  return {
    head: [],
    pending: [],
    ttftMs: 10,
    abort: () => undefined,
    iterator: { next: () => Promise.reject<IteratorResult<UpstreamEvent[]>>(error) },
  };
}

async function settlementOf(error: RouterError): Promise<string[]> {
  const settled: string[] = [];
  const { rest } = toCommittedRest(failingAttempt(error), {
    onSuccess: () => Promise.resolve(void settled.push('success')),
    onFailure: (failed) => Promise.resolve(void settled.push(`failure ${failed.code}`)),
  });
  await expect(
    (async () => {
      for await (const batch of rest) void batch;
    })(),
  ).rejects.toBe(error);
  return settled;
}

describe('toCommittedRest', () => {
  it("books a stream stopped by its client or by autotier's shutdown as a success of the deployment", async () => {
    expect(await settlementOf(failure('CLIENT_CLOSED'))).toEqual(['success']);
    expect(await settlementOf(failure('SHUTTING_DOWN', { retryable: false }))).toEqual(['success']);
  });

  it('books a stream the deployment broke as its failure', async () => {
    expect(await settlementOf(failure('UPSTREAM_STREAM_CUT'))).toEqual(['failure UPSTREAM_STREAM_CUT']);
  });
});
