import { describe, expect, it } from 'vitest';
import { retryInPlaceSchema } from '../config/table-part-schemas.js';
import { RouterError } from '../shared/errors.js';
import { toErrorFromException, toErrorFromStatus } from '../upstream/translate-error.js';
import { decideRetryInPlace, NOTHING_SPENT, type RetryInPlaceInput } from './decide-retry-in-place.js';

const settings = retryInPlaceSchema.parse({});

const status = (code: number, retryAfter?: string) =>
  toErrorFromStatus({ deploymentId: 'a', status: code, bodyText: 'boom', retryAfter, now: 0 });
const thrown = (code: string) =>
  toErrorFromException(Object.assign(new Error(code), { code }), { deploymentId: 'a' });

function input(overrides: Partial<RetryInPlaceInput> = {}): RetryInPlaceInput {
  return {
    error: status(500),
    settings,
    spent: NOTHING_SPENT,
    benched: false,
    peerFree: false,
    callsLeft: 3,
    untried: 0,
    random: () => 0.5,
    now: 0,
    deadlineAt: 4000,
    ...overrides,
  };
}

describe('decideRetryInPlace', () => {
  it('retries a 5xx once after random() * jitter_ms', () => {
    expect(decideRetryInPlace(input())).toEqual({ wait: 125, spent: { transient: 1, retryAfter: false } });
    expect(decideRetryInPlace(input({ error: status(503), random: () => 0 }))?.wait).toBe(0);
    expect(decideRetryInPlace(input({ spent: { transient: 1, retryAfter: false } }))).toBeUndefined();
  });

  it('does not retry a 5xx that the same content already got on another deployment', () => {
    expect(decideRetryInPlace(input({ contentFailedElsewhere: true }))).toBeUndefined();
    expect(decideRetryInPlace(input({ contentFailedElsewhere: false }))?.wait).toBe(125);
  });

  it('retries a connection reset before headers, not a refused connection (the server is down)', () => {
    expect(decideRetryInPlace(input({ error: thrown('ECONNRESET') }))?.wait).toBe(125);
    expect(decideRetryInPlace(input({ error: thrown('ECONNREFUSED') }))).toBeUndefined();
  });

  it('does not retry what another call would not fix sooner: timeouts, a 4xx other than 429, a cut', () => {
    for (const error of [
      thrown('UND_ERR_HEADERS_TIMEOUT'),
      status(404),
      status(400),
      new RouterError({ code: 'UPSTREAM_TTFT_TIMEOUT', message: 'late', retryable: true }),
      new RouterError({ code: 'UPSTREAM_STREAM_CUT', message: 'cut', retryable: true }),
    ])
      expect(decideRetryInPlace(input({ error })), error.code).toBeUndefined();
  });

  it('allows transient_retries retries per deployment, none when it is 0', () => {
    const twice = { ...settings, transient_retries: 2 };
    expect(
      decideRetryInPlace(input({ settings: twice, spent: { transient: 1, retryAfter: false } })),
    ).toEqual({ wait: 125, spent: { transient: 2, retryAfter: false } });
    expect(decideRetryInPlace(input({ settings: { ...settings, transient_retries: 0 } }))).toBeUndefined();
  });

  it('waits out a 429 Retry-After within retry_after_cap_ms, once per deployment', () => {
    const limited = status(429, '2');
    expect(decideRetryInPlace(input({ error: limited }))).toEqual({
      wait: 2000,
      spent: { transient: 0, retryAfter: true },
    });
    expect(decideRetryInPlace(input({ error: limited, spent: { transient: 1, retryAfter: true } }))).toBe(
      undefined,
    );
  });

  it('drops to the next candidate at once for a Retry-After above the cap, a cap of 0, or no Retry-After', () => {
    expect(decideRetryInPlace(input({ error: status(429, '6') }))).toBeUndefined();
    const disabled = { ...settings, retry_after_cap_ms: 0 };
    expect(decideRetryInPlace(input({ error: status(429, '0'), settings: disabled }))).toBeUndefined();
    expect(decideRetryInPlace(input({ error: status(429) }))).toBeUndefined();
  });

  it('goes to a free equal-rank peer instead: no quality is lost there', () => {
    expect(decideRetryInPlace(input({ peerFree: true }))).toBeUndefined();
    expect(decideRetryInPlace(input({ error: status(429, '1'), peerFree: true }))).toBeUndefined();
  });

  it('never retries a benched deployment, past max_attempts, or with a wait that ends at the deadline', () => {
    expect(decideRetryInPlace(input({ benched: true }))).toBeUndefined();
    expect(decideRetryInPlace(input({ callsLeft: 0 }))).toBeUndefined();
    // the last attempt goes to an untried deployment rather than the same one again
    expect(decideRetryInPlace(input({ callsLeft: 1, untried: 1 }))).toBeUndefined();
    expect(decideRetryInPlace(input({ callsLeft: 1, untried: 0 }))).toBeDefined();
    expect(decideRetryInPlace(input({ error: status(429, '2'), now: 2000 }))).toBeUndefined();
    expect(decideRetryInPlace(input({ error: status(429, '2'), now: 1999 }))?.wait).toBe(2000);
    expect(decideRetryInPlace(input({ now: 3875 }))).toBeUndefined();
  });
});
