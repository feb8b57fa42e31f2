import { describe, expect, it } from 'vitest';
import {
  candidate,
  deployment,
  failure,
  plan,
  TEST_RETRY_IN_PLACE,
} from '../../test/helpers/balance-fixtures.js';
import { balancerSchema } from '../config/routing-table-schema.js';
import type { RouterError } from '../shared/errors.js';
import { toErrorFromException, toErrorFromStatus } from '../upstream/translate-error.js';
import { createBalancerPolicy, type FailureState } from './balancer-policy.js';
import { NOTHING_SPENT } from './decide-retry-in-place.js';
import { NO_FAILURES } from './note-failure.js';

/** Defaults: max_attempts 4, backoff 100..2000 ms, cooldown 5000 ms up to 60000 ms. */
const policy = createBalancerPolicy(balancerSchema.parse({}));

const status = (code: number, retryAfter?: string): RouterError =>
  toErrorFromStatus({ deploymentId: 'a', status: code, bodyText: 'boom', retryAfter, now: 0 });
const thrown = (code: string): RouterError =>
  toErrorFromException(Object.assign(new Error(code), { code }), { deploymentId: 'a' });

/** A failed call on a group member with no free peer, 3 of 4 calls left and 4 s to the deadline. */
function state(inPlace: Partial<NonNullable<FailureState['inPlace']>> = {}): FailureState {
  return {
    notes: NO_FAILURES,
    inPlace: {
      settings: TEST_RETRY_IN_PLACE,
      spent: NOTHING_SPENT,
      benched: false,
      peerFree: false,
      calls: 1,
      untried: 0,
      random: () => 0.5,
      now: 0,
      deadlineAt: 4000,
      ...inPlace,
    },
  };
}

const on = (error: RouterError, facts: FailureState = state()) =>
  policy.onFailure({ candidate: candidate('a'), error }, facts);

describe('createBalancerPolicy: after a failed call', () => {
  it('retries a 5xx or a reset in place after the jitter, once, when no equal peer is free', () => {
    expect(on(status(500))).toEqual({
      kind: 'retry-in-place',
      wait: 125,
      spent: { transient: 1, retryAfter: false },
    });
    expect(on(thrown('ECONNRESET')).kind).toBe('retry-in-place');
    expect(on(status(500), state({ spent: { transient: 1, retryAfter: false } })).kind).toBe('move-on');
  });

  it('moves on instead of retrying in place when an untried equal peer is free or the deployment is benched', () => {
    expect(on(status(500), state({ peerFree: true })).kind).toBe('move-on');
    expect(on(status(500), state({ benched: true })).kind).toBe('move-on');
  });

  it('moves on after a refused connection (nothing listens) and waits out a 429 only within the cap', () => {
    expect(on(thrown('ECONNREFUSED')).kind).toBe('move-on');
    expect(on(status(429, '2'))).toEqual({
      kind: 'retry-in-place',
      wait: 2000,
      spent: { transient: 0, retryAfter: true },
    });
    expect(on(status(429, '30')).kind).toBe('move-on');
  });

  it('stops on a failure that is not retryable: a request-shaped 400 fails the same way anywhere', () => {
    const next = on(status(400));
    expect(next.kind === 'stop' && next.error.code).toBe('UPSTREAM_BAD_REQUEST');
  });

  it('stops when the client left, whatever the facts', () => {
    const closed = failure('CLIENT_CLOSED', { retryable: true });
    expect(policy.onFailure({ candidate: candidate('a'), error: closed }, { notes: NO_FAILURES })).toEqual({
      kind: 'stop',
      error: closed,
    });
  });

  it('only moves on or stops when calling the same deployment again is not an option', () => {
    expect(
      policy.onFailure({ candidate: candidate('a'), error: status(500) }, { notes: NO_FAILURES }).kind,
    ).toBe('move-on');
  });

  it('moves on with a raised minimum window after a context-length rejection', () => {
    const next = on(failure('UPSTREAM_CONTEXT_LENGTH'));
    expect(next).toEqual({ kind: 'move-on', notes: { ...NO_FAILURES, minimumWindow: 32_768 } });
  });

  it("keeps a group's only deployment that answered 429 for another round", () => {
    const only = candidate('a', { groupSize: 1 });
    const error = failure('UPSTREAM_RATE_LIMITED', { retryAfterSeconds: 30 });
    const next = policy.onFailure({ candidate: only, error }, { notes: NO_FAILURES });
    expect(next).toEqual({
      kind: 'move-on',
      notes: { ...NO_FAILURES, retryable: [only], retryAfterSeconds: 30 },
    });
  });
});

describe('createBalancerPolicy: max_attempts and the fallback chain', () => {
  it('allows a call while calls are left and the deadline is ahead', () => {
    expect(policy.maxAttempts).toBe(4);
    expect(policy.mayCall({ calls: 3, deadlineAt: 10, now: 9 })).toBe(true);
    expect(policy.mayCall({ calls: 4, deadlineAt: 10, now: 9 })).toBe(false);
    expect(policy.mayCall({ calls: 0, deadlineAt: 10, now: 10 })).toBe(false);
  });

  it('never retries in place with no call left, and gives the last call to an untried candidate', () => {
    expect(on(status(500), state({ calls: 4 })).kind).toBe('move-on');
    expect(on(status(500), state({ calls: 3, untried: 1 })).kind).toBe('move-on');
    expect(on(status(500), state({ calls: 3, untried: 0 })).kind).toBe('retry-in-place');
  });

  it('reads max_attempts from the settings it was built from', () => {
    const one = createBalancerPolicy(balancerSchema.parse({ retry: { max_attempts: 1 } }));
    expect(one.mayCall({ calls: 1, deadlineAt: 10, now: 0 })).toBe(false);
    const error = status(500);
    expect(one.onFailure({ candidate: candidate('a'), error }, state()).kind).toBe('move-on');
  });

  it('after a round: backs off with full jitter for a retryable 429, else ends with ALL_DEPLOYMENTS_FAILED', () => {
    const only = candidate('a', { groupSize: 1 });
    const round = {
      tier: 'SIMPLE',
      attempts: [],
      round: 1,
      random: () => 0.5,
      now: 0,
      deadlineAt: 4000,
    } as const;
    const notes = { ...NO_FAILURES, retryable: [only] };
    expect(policy.afterRound({ ...round, calls: 1, notes })).toEqual({ wait: 100 });
    const spent = policy.afterRound({ ...round, calls: 4, notes });
    expect('error' in spent && spent.error.code).toBe('ALL_DEPLOYMENTS_FAILED');
    const none = policy.afterRound({ ...round, calls: 1, notes: NO_FAILURES });
    expect('error' in none && none.error.status).toBe(503);
  });
});

describe('createBalancerPolicy: cooldowns', () => {
  const bench = { groupSize: 2, now: 1000 };

  it('benches for cooldown_ms after a first failure, doubling with each consecutive one up to max_cooldown_ms', () => {
    const error = failure('UPSTREAM_SERVER_ERROR');
    expect(policy.cooldownFor({ ...bench, error, previousFailures: 0 })).toEqual({
      until: 6000,
      reason: 'UPSTREAM_SERVER_ERROR',
      failures: 1,
    });
    expect(policy.cooldownFor({ ...bench, error, previousFailures: 2 })?.until).toBe(21_000);
    expect(policy.cooldownFor({ ...bench, error, previousFailures: 9 })?.until).toBe(61_000);
  });

  it("never benches for a request's own fault, nor a group's only deployment for a 429", () => {
    expect(
      policy.cooldownFor({ ...bench, error: failure('UPSTREAM_BAD_REQUEST'), previousFailures: 0 }),
    ).toBeUndefined();
    const limited = failure('UPSTREAM_RATE_LIMITED', { retryAfterSeconds: 2 });
    expect(
      policy.cooldownFor({ ...bench, groupSize: 1, error: limited, previousFailures: 0 }),
    ).toBeUndefined();
  });

  it('reads cooldown_ms and max_cooldown_ms from its settings', () => {
    const short = createBalancerPolicy(balancerSchema.parse({ cooldown_ms: 100, max_cooldown_ms: 150 }));
    const error = failure('UPSTREAM_CONNECT_FAILED');
    expect(short.cooldownFor({ ...bench, error, previousFailures: 0 })?.until).toBe(1100);
    expect(short.cooldownFor({ ...bench, error, previousFailures: 3 })?.until).toBe(1150);
  });

  it('panics onto the cooling deployment whose cooldown ends soonest, a lifted one first', () => {
    expect(
      policy.panicPick([
        { id: 'a', until: 9000 },
        { id: 'b', until: 3000 },
      ]),
    ).toBe('b');
    expect(
      policy.panicPick([
        { id: 'a', until: 9000 },
        { id: 'b', until: undefined },
      ]),
    ).toBe('b');
    expect(policy.panicPick([])).toBeUndefined();
  });
});

describe('createBalancerPolicy: content faults', () => {
  const five = (code: number) => ({ candidate: candidate('a'), error: status(code) });

  it('treats a 500 as possibly the content, a 502, 503 or 504 as the server', () => {
    expect(policy.isContentFault(five(500))).toBe(true);
    for (const code of [502, 503, 504]) expect(policy.isContentFault(five(code))).toBe(false);
  });

  it('stops with 502 once the content failed on 2 deployments and was never answered', () => {
    expect(policy.contentStop({ failure: five(500), answered: false, failedDeployments: 1 })).toBeUndefined();
    expect(policy.contentStop({ failure: five(500), answered: true, failedDeployments: 2 })).toBeUndefined();
    const stop = policy.contentStop({ failure: five(500), answered: false, failedDeployments: 2 });
    expect(stop?.code).toBe('UPSTREAM_SERVER_ERROR');
    expect(stop?.status).toBe(502);
    expect(stop?.upstreamStatus).toBe(500);
  });

  it('does not retry a 5xx in place when the same content already failed on another deployment', () => {
    expect(on(status(500), state({ contentFailedElsewhere: true })).kind).toBe('move-on');
  });

  it('puts a held 5xx on the request when the content fails elsewhere too, else on the deployment', () => {
    const facts = { answered: false, reproducedElsewhere: false, repeatedHere: false, failingContents: 1 };
    expect(policy.faultOwner(facts)).toBe('deployment');
    expect(policy.faultOwner({ ...facts, reproducedElsewhere: true })).toBe('request');
    expect(policy.faultOwner({ ...facts, reproducedElsewhere: true, failingContents: 3 })).toBe('deployment');
  });
});

describe('createBalancerPolicy: the try order', () => {
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((id) => deployment(id));
  const load = {
    inFlight: new Map([
      ['a', 5],
      ['b', 0],
    ]),
    latencies: new Map([
      ['a', 100],
      ['b', 900],
    ]),
  };
  const ids = (candidates: { deployment: { id: string }; fallback: boolean }[]) =>
    candidates.map((entry) => `${entry.deployment.id}${entry.fallback ? '*' : ''}`);

  it('orders the group by its strategy, then the fallback chain without the group members', () => {
    if (a === undefined || b === undefined || c === undefined || d === undefined) throw new Error('fixture');
    const leastBusy = { ...plan([a, b], [c, a, d]), strategy: 'least_busy' as const };
    expect(ids(policy.tryOrder(leastBusy, load, () => 0))).toEqual(['b', 'a', 'c*', 'd*']);
    const latency = { ...leastBusy, strategy: 'latency' as const };
    expect(ids(policy.tryOrder(latency, load, () => 0))).toEqual(['a', 'b', 'c*', 'd*']);
  });

  it('reads the load only for strategies that use it', () => {
    if (a === undefined) throw new Error('fixture');
    expect(policy.readsLoad({ ...plan([a]), strategy: 'weighted' })).toBe(false);
    expect(policy.readsLoad({ ...plan([a]), strategy: 'least_busy' })).toBe(true);
    expect(policy.readsLoad({ ...plan([a]), strategy: 'latency' })).toBe(true);
  });
});
