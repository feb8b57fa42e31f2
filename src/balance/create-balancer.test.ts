import { describe, expect, it } from 'vitest';
import { routingTableSchema, type RoutingTable } from '../config/routing-table-schema.js';
import { createRecordingLogger } from '../shared/logger.js';
import type { AttemptSummary } from '../observe/request-summary.js';
import { createCancelController } from '../shared/cancel-signal.js';
import { RouterError } from '../shared/errors.js';
import { createMemoryStateStore } from '../state/create-memory-state-store.js';
import { createManualTime } from '../../test/helpers/manual-time.js';
import { createScriptedUpstream, type Outcome } from '../../test/helpers/scripted-upstream.js';
import { deployment, TEST_RETRY_IN_PLACE, TEST_TIMEOUTS } from '../../test/helpers/balance-fixtures.js';
import type { ContinuationEvent, ExecuteRequest, ExecuteResult } from './balancer.js';
import { createBalancerPolicy } from './balancer-policy.js';
import { createBalancer, type BalancerOptions } from './create-balancer.js';
import type { RoutePlan } from './route-plan.js';

interface SetupOptions {
  scripts?: Record<string, Outcome[]>;
  group?: string[];
  fallback?: string[];
  /** Deployment fields by id (context_window, max_concurrency, limits). */
  overrides?: Record<string, Record<string, unknown>>;
  timeouts?: Partial<typeof TEST_TIMEOUTS>;
  retryInPlace?: Partial<typeof TEST_RETRY_IN_PLACE>;
  cooldownMs?: number;
  /** @default () => 0 */
  random?: () => number;
  /** @default createBalancerPolicy */
  createPolicy?: BalancerOptions['createPolicy'];
}

const RETRY = { max_attempts: 4, backoff_base_ms: 50, backoff_max_ms: 200, retry_after_cap_ms: 3000 };

function toTable(options: SetupOptions): RoutingTable {
  const ids = [...(options.group ?? ['a', 'b']), ...(options.fallback ?? [])];
  return routingTableSchema.parse({
    deployments: ids.map((id) => ({
      id,
      model: 'sim-model',
      base_url: `http://${id}.invalid/v1`,
      context_window: 32_768,
      ...options.overrides?.[id],
    })),
    tiers: Object.fromEntries(
      ['SIMPLE', 'MODERATE', 'COMPLEX', 'EXPERT'].map((tier) => [
        tier,
        { group: options.group ?? ['a', 'b'], fallback: options.fallback ?? [] },
      ]),
    ),
    balancer: { cooldown_ms: options.cooldownMs ?? 2000, retry: RETRY },
  });
}

/** A balancer on a scripted upstream, the memory store and manual time; random() = 0 keeps group order. */
function setup(options: SetupOptions = {}) {
  const time = createManualTime();
  const upstream = createScriptedUpstream(time, options.scripts);
  const store = createMemoryStateStore({ clock: time.clock });
  const table = toTable(options);
  const attempts: AttemptSummary[] = [];
  const benched: string[] = [];
  const continuations: ContinuationEvent[] = [];
  const balancer = createBalancer({
    upstream,
    store,
    clock: time.clock,
    random: options.random ?? (() => 0),
    sleep: time.sleep,
    logger: createRecordingLogger(),
    table: () => table,
    onAttempt: (attempt) => attempts.push(attempt),
    onCooldown: (id, reason) => benched.push(`${id}: ${reason}`),
    onContinuation: (event) => continuations.push(event),
    ...(options.createPolicy === undefined ? {} : { createPolicy: options.createPolicy }),
  });
  const byId = (id: string) => deployment(id, options.overrides?.[id]);
  const plan: RoutePlan = {
    tier: 'SIMPLE',
    group: (options.group ?? ['a', 'b']).map(byId),
    fallback: (options.fallback ?? []).map(byId),
    strategy: 'weighted',
    timeouts: { ...TEST_TIMEOUTS, ...options.timeouts },
    retryInPlace: { ...TEST_RETRY_IN_PLACE, ...options.retryInPlace },
  };
  let requests = 0;
  const toRequest = (overrides: Partial<ExecuteRequest> = {}): ExecuteRequest => ({
    plan,
    path: '/chat/completions',
    toBody: (target) => JSON.stringify({ model: target.model }),
    signal: createCancelController().signal,
    requestId: `request-${(requests += 1)}`,
    commit: 'complete',
    startedAt: time.clock.now(),
    promptTokens: 10,
    ...overrides,
  });
  /** Runs one request to its end, moving manual time as it waits. */
  const send = (overrides: Partial<ExecuteRequest> = {}): Promise<ExecuteResult> =>
    time.runUntil(balancer.execute(toRequest(overrides)));
  /** The error one request ends with. */
  const sendFailing = async (overrides: Partial<ExecuteRequest> = {}) => {
    const error = await send(overrides).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    if (!(error instanceof RouterError)) throw new Error(`expected a RouterError, got ${String(error)}`);
    return error;
  };
  return { time, upstream, store, attempts, benched, continuations, balancer, toRequest, send, sendFailing };
}

const ids = (result: ExecuteResult) =>
  result.attempts.map((attempt) => `${attempt.deploymentId}: ${attempt.outcome}`);

async function drain(result: ExecuteResult): Promise<number> {
  let batches = 0;
  for await (const _batch of result.rest) batches += 1;
  return batches;
}

describe('createBalancer: the policy passed in', () => {
  it('asks the policy it was given what to do after a failure: a policy that stops ends the request there', async () => {
    const scripts = { a: [{ kind: 'status', status: 503 }] } satisfies Record<string, Outcome[]>;
    const stopping: BalancerOptions['createPolicy'] = (settings) => ({
      ...createBalancerPolicy(settings),
      onFailure: (failure) => ({ kind: 'stop', error: failure.error }),
    });
    const stopped = setup({ scripts, createPolicy: stopping });
    expect((await stopped.sendFailing()).code).toBe('UPSTREAM_SERVER_ERROR');
    expect(stopped.upstream.calls.map((call) => call.deploymentId)).toEqual(['a']);
    const moving = setup({ scripts });
    expect((await moving.send()).deployment.id).toBe('b');
  });
});

describe('createBalancer: failover order', () => {
  it('answers from the first deployment of the group when it is healthy, without waiting', async () => {
    const { send, upstream, time } = setup();
    const result = await send();
    expect(result.deployment.id).toBe('a');
    expect(ids(result)).toEqual(['a: OK']);
    expect(upstream.calls.map((call) => call.deploymentId)).toEqual(['a']);
    expect(time.sleeps).toEqual([]);
  });

  it('fails over along the group, then along the quality-ordered fallback chain (no retries in place)', async () => {
    const { send } = setup({
      group: ['a', 'b'],
      fallback: ['c', 'd'],
      retryInPlace: { transient_retries: 0 },
      scripts: {
        a: [{ kind: 'status', status: 503 }],
        b: [{ kind: 'connect_error' }],
        c: [{ kind: 'status', status: 500 }],
      },
    });
    const result = await send();
    expect(ids(result)).toEqual([
      'a: UPSTREAM_SERVER_ERROR',
      'b: UPSTREAM_CONNECT_FAILED',
      'c: UPSTREAM_SERVER_ERROR',
      'd: OK',
    ]);
    expect(result.deployment.id).toBe('d');
    expect(result.fallbacks).toBe(2);
    expect(result.attempts.map((attempt) => attempt.fallback)).toEqual([false, false, true, true]);
  });

  it('makes at most max_attempts (4) calls, in-place retries included, then answers 503 naming every attempt', async () => {
    const down: Outcome[] = [{ kind: 'status', status: 503 }];
    const { sendFailing, upstream } = setup({
      group: ['a', 'b', 'c'],
      fallback: ['d', 'e'],
      scripts: { a: down, b: down, c: down, d: down, e: down },
    });
    const error = await sendFailing();
    expect(error).toMatchObject({ code: 'ALL_DEPLOYMENTS_FAILED', status: 503 });
    // c would be retried in place before the weaker d, but not with the last attempt: d gets it
    expect(upstream.calls.map((call) => call.deploymentId)).toEqual(['a', 'b', 'c', 'd']);
    for (const id of ['a', 'b', 'c']) expect(error.message).toContain(`${id}: UPSTREAM_SERVER_ERROR`);
  });

  it('returns a request-shaped 400 as is: no failover, nothing benched', async () => {
    const { sendFailing, upstream, benched } = setup({ scripts: { a: [{ kind: 'status', status: 400 }] } });
    expect(await sendFailing()).toMatchObject({ code: 'UPSTREAM_BAD_REQUEST', status: 400 });
    expect(upstream.callsTo('b')).toBe(0);
    expect(benched).toEqual([]);
  });

  it('sends a prompt rejected for length only to deployments with a larger window', async () => {
    const { send, sendFailing, upstream } = setup({
      group: ['small', 'peer', 'big'],
      overrides: {
        small: { context_window: 16_384 },
        peer: { context_window: 16_384 },
        big: { context_window: 65_536 },
      },
      scripts: { small: [{ kind: 'status', status: 400, body: 'maximum context length is 16384 tokens' }] },
    });
    const result = await send();
    expect(result.deployment.id).toBe('big');
    expect(upstream.callsTo('peer')).toBe(0);
    upstream.script('big', [{ kind: 'status', status: 400, body: 'maximum context length is 65536 tokens' }]);
    expect(await sendFailing()).toMatchObject({ code: 'UPSTREAM_CONTEXT_LENGTH', status: 400 });
  });

  it('tells the observer about every attempt, numbered, with its tier and request id', async () => {
    const { send, attempts } = setup({ scripts: { a: [{ kind: 'status', status: 503 }] } });
    await send({ requestId: 'r-1' });
    expect(
      attempts.map(({ deploymentId, attempt, outcome, requestId, tier }) => ({
        deploymentId,
        attempt,
        outcome,
        requestId,
        tier,
      })),
    ).toEqual([
      { deploymentId: 'a', attempt: 1, outcome: 'UPSTREAM_SERVER_ERROR', requestId: 'r-1', tier: 'SIMPLE' },
      { deploymentId: 'b', attempt: 2, outcome: 'OK', requestId: 'r-1', tier: 'SIMPLE' },
    ]);
  });
});

describe('createBalancer: timeouts and the total budget', () => {
  it('fails over from a silent upstream at connect_ms', async () => {
    const { send, time } = setup({ scripts: { a: [{ kind: 'silent' }] } });
    const started = time.clock.now();
    const result = await send();
    expect(ids(result)).toEqual(['a: UPSTREAM_CONNECT_TIMEOUT', 'b: OK']);
    expect(result.firstTokenAt - started).toBe(TEST_TIMEOUTS.connect_ms);
  });

  it('fails over from an upstream without a first token at ttft_ms', async () => {
    const { send, time } = setup({ scripts: { a: [{ kind: 'no_first_token' }] } });
    const started = time.clock.now();
    const result = await send();
    expect(ids(result)).toEqual(['a: UPSTREAM_TTFT_TIMEOUT', 'b: OK']);
    expect(result.firstTokenAt - started).toBe(TEST_TIMEOUTS.ttft_ms);
    expect(result.upstreamMs).toBe(TEST_TIMEOUTS.ttft_ms);
  });

  it('keeps a first token within ttft_ms: no failover', async () => {
    const { send } = setup({ scripts: { a: [{ kind: 'answer', ttftMs: 1000 }] } });
    const result = await send();
    expect(ids(result)).toEqual(['a: OK']);
    expect(result.ttftMs).toBe(1000);
  });

  it('ends with 504 DEADLINE_EXCEEDED exactly at total_ms and calls nothing after it', async () => {
    const silent: Outcome[] = [{ kind: 'silent' }];
    const { sendFailing, upstream, time } = setup({
      fallback: ['c'],
      timeouts: { connect_ms: 10_000, ttft_ms: 10_000, total_ms: 900 },
      scripts: { a: silent, b: silent, c: silent },
    });
    const started = time.clock.now();
    const error = await sendFailing();
    expect(error).toMatchObject({ code: 'DEADLINE_EXCEEDED', status: 504 });
    expect(time.clock.now() - started).toBe(900);
    expect(upstream.calls.map((call) => call.deploymentId)).toEqual(['a']);
    await time.advance(5000);
    expect(upstream.calls).toHaveLength(1);
  });

  it('narrows each attempt to what is left of total_ms', async () => {
    const { send, upstream } = setup({
      timeouts: { connect_ms: 1000, ttft_ms: 3000, total_ms: 1500 },
      scripts: { a: [{ kind: 'silent' }] },
    });
    await send();
    expect(upstream.calls.map((call) => [call.request.limits.connectMs, call.request.limits.ttftMs])).toEqual(
      [
        [1000, 1500],
        [500, 500],
      ],
    );
  });
});

describe('createBalancer: cooldowns and probes', () => {
  it('benches a failed deployment, skips it without a call while it cools down, then takes it back after one probe', async () => {
    const { send, upstream, time, benched } = setup({
      cooldownMs: 2000,
      scripts: { a: [{ kind: 'status', status: 503 }] },
    });
    expect((await send()).deployment.id).toBe('b');
    expect(benched).toEqual(['a: UPSTREAM_SERVER_ERROR']);
    upstream.script('a', [{ kind: 'answer' }]);
    await time.advance(1999);
    const skipped = await send();
    expect(ids(skipped)).toEqual(['a: COOLING_DOWN', 'b: OK']);
    expect(skipped.attempts[0]?.called).toBe(false);
    expect(upstream.callsTo('a')).toBe(1);
    await time.advance(1);
    const probe = await send();
    expect(ids(probe)).toEqual(['a: OK']);
    expect(ids(await send())).toEqual(['a: OK']);
  });

  it('doubles the cooldown after a failed probe', async () => {
    const { send, time, upstream } = setup({
      cooldownMs: 1000,
      scripts: { a: [{ kind: 'status', status: 503 }] },
    });
    await send();
    await time.advance(1000);
    expect(ids(await send())).toEqual(['a: UPSTREAM_SERVER_ERROR', 'b: OK']);
    upstream.script('a', [{ kind: 'answer' }]);
    await time.advance(1999);
    expect(ids(await send())).toEqual(['a: COOLING_DOWN', 'b: OK']);
    await time.advance(1);
    expect(ids(await send())).toEqual(['a: OK']);
  });

  it('lets only one request probe a recovering deployment', async () => {
    const { balancer, toRequest, time, upstream } = setup({
      cooldownMs: 1000,
      scripts: {
        a: [
          { kind: 'status', status: 503 },
          { kind: 'answer', ttftMs: 500 },
        ],
      },
    });
    await time.runUntil(balancer.execute(toRequest()));
    await time.advance(1000);
    const probe = balancer.execute(toRequest({ commit: 'first_content' }));
    await time.advance(100);
    const other = await time.runUntil(balancer.execute(toRequest()));
    expect(ids(other)).toEqual(['a: PROBE_IN_PROGRESS', 'b: OK']);
    const probed = await time.runUntil(probe);
    expect(probed.deployment.id).toBe('a');
    await drain(probed);
    expect(upstream.callsTo('a')).toBe(2);
  });

  it('calls the deployment whose cooldown ends first once, without a wait, while every deployment cools down', async () => {
    const down: Outcome[] = [{ kind: 'status', status: 503 }];
    const { sendFailing, upstream, time } = setup({ scripts: { a: down, b: down } });
    await sendFailing();
    // a, then b, then b once more in place (no peer of b was left)
    expect(upstream.calls).toHaveLength(3);
    const sleeps = time.sleeps.length;
    const error = await sendFailing();
    expect(error).toMatchObject({ code: 'ALL_DEPLOYMENTS_FAILED', status: 503 });
    expect(error.message).toContain('COOLING_DOWN');
    // a was benched first, so its cooldown ends first: one panic call, not retried in place
    expect(upstream.calls).toHaveLength(4);
    expect(upstream.callsTo('a')).toBe(2);
    expect(time.sleeps).toHaveLength(sleeps);
  });

  it('answers from a deployment that cools down when every deployment does and it has recovered', async () => {
    const { send, sendFailing, upstream } = setup({
      scripts: {
        a: [
          { kind: 'status', status: 503 },
          { kind: 'answer', ttftMs: 5 },
        ],
        b: [{ kind: 'status', status: 503 }],
      },
    });
    await sendFailing();
    const answered = await send();
    expect(answered.deployment.id).toBe('a');
    expect(upstream.callsTo('a')).toBe(2);
  });

  it('skips a deployment at max_concurrency', async () => {
    const { send, store } = setup({ overrides: { a: { max_concurrency: 1 } } });
    await store.addInFlight('a', 1);
    expect(ids(await send())).toEqual(['a: AT_MAX_CONCURRENCY', 'b: OK']);
  });

  it('skips a deployment whose requests-per-minute quota is used up', async () => {
    const { send } = setup({ overrides: { a: { limits: { rpm: 1 } } } });
    expect(ids(await send())).toEqual(['a: OK']);
    expect(ids(await send())).toEqual(['a: QUOTA_EXHAUSTED', 'b: OK']);
  });

  it('returns every in-flight count to zero, answered or failed', async () => {
    const { send, sendFailing, store, upstream } = setup({
      scripts: { a: [{ kind: 'status', status: 503 }] },
    });
    await send();
    upstream.script('b', [{ kind: 'status', status: 400 }]);
    await sendFailing();
    expect([...(await store.getInFlight(['a', 'b']))]).toEqual([]);
  });
});

describe('createBalancer: 429 and Retry-After', () => {
  it("waits out the Retry-After of a group's only deployment, retries it and does not bench it", async () => {
    const { send, time, benched } = setup({
      group: ['a'],
      scripts: { a: [{ kind: 'status', status: 429, retryAfter: '1' }, { kind: 'answer' }] },
    });
    const result = await send();
    expect(ids(result)).toEqual(['a: UPSTREAM_RATE_LIMITED', 'a: OK']);
    expect(time.sleeps).toEqual([1000]);
    expect(benched).toEqual([]);
    expect(ids(await send())).toEqual(['a: OK']);
  });

  it("retries a group's only deployment with backoff up to max_attempts when 429 has no Retry-After", async () => {
    const { sendFailing, time, upstream } = setup({
      group: ['a'],
      scripts: { a: [{ kind: 'status', status: 429 }] },
    });
    expect(await sendFailing()).toMatchObject({ code: 'ALL_DEPLOYMENTS_FAILED' });
    expect(upstream.callsTo('a')).toBe(4);
    // random() = 0: full jitter waits nothing, but a wait is still asked for each round
    expect(time.sleeps).toEqual([0, 0, 0]);
  });

  it('answers 503 at once with Retry-After passed on when it is above retry_after_cap_ms', async () => {
    const { sendFailing, time } = setup({
      group: ['a'],
      scripts: { a: [{ kind: 'status', status: 429, retryAfter: '30' }] },
    });
    expect(await sendFailing()).toMatchObject({ code: 'ALL_DEPLOYMENTS_FAILED', retryAfterSeconds: 30 });
    expect(time.sleeps).toEqual([]);
  });

  it('does not wait when the Retry-After ends after total_ms', async () => {
    const { sendFailing, time } = setup({
      group: ['a'],
      timeouts: { total_ms: 2000 },
      scripts: { a: [{ kind: 'status', status: 429, retryAfter: '2' }] },
    });
    expect(await sendFailing()).toMatchObject({ code: 'ALL_DEPLOYMENTS_FAILED', retryAfterSeconds: 2 });
    expect(time.sleeps).toEqual([]);
  });

  it('benches a 429ing deployment that has alternatives for its Retry-After and fails over at once', async () => {
    const { send, time } = setup({
      cooldownMs: 5000,
      scripts: { a: [{ kind: 'status', status: 429, retryAfter: '2' }, { kind: 'answer' }] },
    });
    expect(ids(await send())).toEqual(['a: UPSTREAM_RATE_LIMITED', 'b: OK']);
    expect(time.sleeps).toEqual([]);
    await time.advance(1999);
    expect(ids(await send())[0]).toBe('a: COOLING_DOWN');
    await time.advance(1);
    expect(ids(await send())).toEqual(['a: OK']);
  });

  it('ends with CLIENT_CLOSED when the client leaves during the backoff', async () => {
    const { balancer, toRequest, time } = setup({
      group: ['a'],
      scripts: { a: [{ kind: 'status', status: 429, retryAfter: '2' }] },
    });
    const controller = createCancelController();
    const pending = balancer.execute(toRequest({ signal: controller.signal }));
    pending.catch(() => undefined);
    await time.advance(100);
    expect(time.pending()).toBe(1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
  });

  it("ends with the drain's SHUTTING_DOWN, not CLIENT_CLOSED, when a drain stops it during the backoff", async () => {
    const { balancer, toRequest, time } = setup({
      group: ['a'],
      scripts: { a: [{ kind: 'status', status: 429, retryAfter: '2' }] },
    });
    const controller = createCancelController();
    const pending = balancer.execute(toRequest({ signal: controller.signal }));
    pending.catch(() => undefined);
    await time.advance(100);
    expect(time.pending()).toBe(1);
    controller.abort(new RouterError({ code: 'SHUTTING_DOWN', message: 'grace period ended' }));
    await expect(pending).rejects.toMatchObject({ code: 'SHUTTING_DOWN' });
  });
});

describe('createBalancer: retries in place before a weaker deployment', () => {
  const serverError: Outcome = { kind: 'status', status: 500 };
  /** Group [a] and the weaker fallback b: anything but a retry of a drops quality. */
  const primaryAndFallback = { group: ['a'], fallback: ['b'] };

  it('answers from the primary after one 500: two calls to it, both told to the observer, nothing benched', async () => {
    const { send, upstream, attempts, benched, store } = setup({
      ...primaryAndFallback,
      scripts: { a: [serverError, { kind: 'answer' }] },
    });
    const result = await send();
    expect(ids(result)).toEqual(['a: UPSTREAM_SERVER_ERROR', 'a: OK']);
    expect(result.fallbacks).toBe(0);
    expect(upstream.calls.map((call) => call.deploymentId)).toEqual(['a', 'a']);
    expect(attempts.map(({ deploymentId, attempt, outcome }) => [deploymentId, attempt, outcome])).toEqual([
      ['a', 1, 'UPSTREAM_SERVER_ERROR'],
      ['a', 2, 'OK'],
    ]);
    expect(benched).toEqual([]);
    expect([...(await store.getInFlight(['a', 'b']))]).toEqual([]);
    expect(ids(await send())).toEqual(['a: OK']);
  });

  it('retries a connection reset before headers on the same deployment', async () => {
    const { send } = setup({
      ...primaryAndFallback,
      scripts: { a: [{ kind: 'reset' }, { kind: 'answer' }] },
    });
    expect(ids(await send())).toEqual(['a: UPSTREAM_CONNECT_FAILED', 'a: OK']);
  });

  it('does not retry a refused connection in place: the server is down, the fallback answers at once', async () => {
    const { send, time } = setup({ ...primaryAndFallback, scripts: { a: [{ kind: 'connect_error' }] } });
    expect(ids(await send())).toEqual(['a: UPSTREAM_CONNECT_FAILED', 'b: OK']);
    expect(time.sleeps).toEqual([]);
  });

  it('goes on to the fallback after a second 500 and benches the primary once', async () => {
    const { send, benched } = setup({
      ...primaryAndFallback,
      scripts: { a: [serverError, serverError, { kind: 'answer' }] },
    });
    expect(ids(await send())).toEqual(['a: UPSTREAM_SERVER_ERROR', 'a: UPSTREAM_SERVER_ERROR', 'b: OK']);
    expect(benched).toEqual(['a: UPSTREAM_SERVER_ERROR']);
    expect(ids(await send())[0]).toMatch(/^a: COOLING_DOWN/);
  });

  it('goes to a free equal-rank peer instead of retrying in place', async () => {
    const { send, time } = setup({ group: ['a', 'b'], fallback: ['c'], scripts: { a: [serverError] } });
    expect(ids(await send())).toEqual(['a: UPSTREAM_SERVER_ERROR', 'b: OK']);
    expect(time.sleeps).toEqual([]);
  });

  it('retries in place when the only peer is full: the next free candidate is weaker', async () => {
    const { send, store } = setup({
      group: ['a', 'b'],
      fallback: ['c'],
      overrides: { b: { max_concurrency: 1 } },
      scripts: { a: [serverError, { kind: 'answer' }] },
    });
    await store.addInFlight('b', 1);
    expect(ids(await send())).toEqual(['a: UPSTREAM_SERVER_ERROR', 'a: OK']);
  });

  it('retries a fallback in place too: the chain after it is weaker still', async () => {
    const { send } = setup({
      group: ['a'],
      fallback: ['b', 'c'],
      scripts: { a: [{ kind: 'connect_error' }], b: [serverError, { kind: 'answer' }] },
    });
    const result = await send();
    expect(ids(result)).toEqual(['a: UPSTREAM_CONNECT_FAILED', 'b: UPSTREAM_SERVER_ERROR', 'b: OK']);
    expect(result.fallbacks).toBe(2);
  });

  it('waits random() * jitter_ms before the retry, on the injected random and sleep', async () => {
    const { send, time } = setup({
      ...primaryAndFallback,
      random: () => 0.4,
      retryInPlace: { jitter_ms: 250 },
      scripts: { a: [serverError, { kind: 'answer' }] },
    });
    const started = time.clock.now();
    const result = await send();
    expect(time.sleeps).toEqual([100]);
    expect(result.firstTokenAt - started).toBe(100);
  });

  it('does not retry in place when transient_retries is 0', async () => {
    const { send } = setup({
      ...primaryAndFallback,
      retryInPlace: { transient_retries: 0 },
      scripts: { a: [serverError, { kind: 'answer' }] },
    });
    expect(ids(await send())).toEqual(['a: UPSTREAM_SERVER_ERROR', 'b: OK']);
  });

  it('does not retry a failed probe in place: a benched deployment that fails again waits out its cooldown', async () => {
    const { send, time, benched } = setup({
      ...primaryAndFallback,
      cooldownMs: 1000,
      scripts: { a: [serverError] },
    });
    await send();
    await time.advance(1000);
    expect(ids(await send())).toEqual(['a: UPSTREAM_SERVER_ERROR', 'b: OK']);
    expect(benched).toEqual(['a: UPSTREAM_SERVER_ERROR', 'a: UPSTREAM_SERVER_ERROR']);
  });

  it('counts the retry against the quota: at its limit the retry is skipped and the primary benched', async () => {
    const { send, benched } = setup({
      ...primaryAndFallback,
      overrides: { a: { limits: { rpm: 1 } } },
      scripts: { a: [serverError, { kind: 'answer' }] },
    });
    expect(ids(await send())).toEqual(['a: UPSTREAM_SERVER_ERROR', 'a: QUOTA_EXHAUSTED', 'b: OK']);
    expect(benched).toEqual(['a: UPSTREAM_SERVER_ERROR']);
  });

  it('waits a 429 Retry-After of 2 s within the cap on the primary, then the primary answers', async () => {
    const { send, time, benched } = setup({
      ...primaryAndFallback,
      scripts: { a: [{ kind: 'status', status: 429, retryAfter: '2' }, { kind: 'answer' }] },
    });
    const started = time.clock.now();
    const result = await send();
    expect(ids(result)).toEqual(['a: UPSTREAM_RATE_LIMITED', 'a: OK']);
    expect(time.sleeps).toEqual([2000]);
    expect(result.firstTokenAt - started).toBe(2000);
    expect(benched).toEqual([]);
  });

  it('waits out one Retry-After per deployment: a second 429 goes on to the fallback', async () => {
    const limited: Outcome = { kind: 'status', status: 429, retryAfter: '1' };
    const { send, time } = setup({ ...primaryAndFallback, scripts: { a: [limited, limited] } });
    expect(ids(await send())).toEqual(['a: UPSTREAM_RATE_LIMITED', 'a: UPSTREAM_RATE_LIMITED', 'b: OK']);
    expect(time.sleeps).toEqual([1000]);
  });

  it('goes to the fallback at once for a Retry-After above retry_after_cap_ms', async () => {
    const { send, time } = setup({
      ...primaryAndFallback,
      retryInPlace: { retry_after_cap_ms: 1000 },
      scripts: { a: [{ kind: 'status', status: 429, retryAfter: '2' }] },
    });
    expect(ids(await send())).toEqual(['a: UPSTREAM_RATE_LIMITED', 'b: OK']);
    expect(time.sleeps).toEqual([]);
  });

  it('goes to the fallback at once for a Retry-After that ends after total_ms', async () => {
    const { send, time } = setup({
      ...primaryAndFallback,
      timeouts: { total_ms: 2000 },
      scripts: { a: [{ kind: 'status', status: 429, retryAfter: '2' }] },
    });
    expect(ids(await send())).toEqual(['a: UPSTREAM_RATE_LIMITED', 'b: OK']);
    expect(time.sleeps).toEqual([]);
  });

  it('ends with CLIENT_CLOSED when the client leaves during the wait, and books the failure', async () => {
    const { balancer, toRequest, time, upstream, benched, store } = setup({
      ...primaryAndFallback,
      random: () => 0.5,
      scripts: { a: [serverError, { kind: 'answer' }] },
    });
    const controller = createCancelController();
    const pending = balancer.execute(toRequest({ signal: controller.signal }));
    pending.catch(() => undefined);
    await time.advance(100);
    expect(time.sleeps).toEqual([125]);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
    expect(upstream.calls.map((call) => call.deploymentId)).toEqual(['a']);
    expect(benched).toEqual(['a: UPSTREAM_SERVER_ERROR']);
    expect([...(await store.getInFlight(['a']))]).toEqual([]);
  });

  it("ends with the drain's SHUTTING_DOWN when a drain stops it during the wait, and books the failure", async () => {
    const { balancer, toRequest, time, benched } = setup({
      ...primaryAndFallback,
      random: () => 0.5,
      scripts: { a: [serverError, { kind: 'answer' }] },
    });
    const controller = createCancelController();
    const pending = balancer.execute(toRequest({ signal: controller.signal }));
    pending.catch(() => undefined);
    await time.advance(100);
    expect(time.sleeps).toEqual([125]);
    controller.abort(new RouterError({ code: 'SHUTTING_DOWN', message: 'grace period ended' }));
    await expect(pending).rejects.toMatchObject({ code: 'SHUTTING_DOWN' });
    expect(benched).toEqual(['a: UPSTREAM_SERVER_ERROR']);
  });
});

describe('createBalancer: the commit point', () => {
  it('does not fail over a stream cut after its first content token: the error reaches the client in-band', async () => {
    const { send, upstream, benched, store } = setup({ scripts: { a: [{ kind: 'cut', after: 2 }] } });
    const result = await send({ commit: 'first_content' });
    expect(result.deployment.id).toBe('a');
    expect(result.head.some((event) => event.firstContent)).toBe(true);
    await expect(drain(result)).rejects.toMatchObject({ code: 'UPSTREAM_STREAM_CUT' });
    expect(upstream.callsTo('b')).toBe(0);
    expect(benched).toEqual(['a: UPSTREAM_STREAM_CUT']);
    expect([...(await store.getInFlight(['a']))]).toEqual([]);
  });

  it('fails over a buffered answer cut before its end (nothing was sent yet)', async () => {
    const { send } = setup({ scripts: { a: [{ kind: 'cut', after: 2 }] } });
    const result = await send({ commit: 'complete' });
    expect(ids(result)).toEqual(['a: UPSTREAM_STREAM_CUT', 'b: OK']);
  });

  it('streams the rest of a committed answer and books it as a success with its completion tokens', async () => {
    const { send, store } = setup({
      overrides: { a: { limits: { tpm: 1000 } } },
      scripts: { a: [{ kind: 'answer', tokens: 5 }] },
    });
    const result = await send({ commit: 'first_content' });
    expect(await drain(result)).toBe(5);
    expect([...(await store.getInFlight(['a']))]).toEqual([]);
    expect((await store.getLatencies(['a'])).get('a')).toBe(0);
  });

  it('books a stream the client cancelled as a success and aborts the upstream', async () => {
    const { send, store, upstream, benched } = setup();
    const result = await send({ commit: 'first_content' });
    result.cancel();
    await Promise.resolve();
    expect(upstream.calls[0]?.aborted).toBe(true);
    expect(benched).toEqual([]);
    await expect.poll(async () => [...(await store.getInFlight(['a']))]).toEqual([]);
  });
});

describe('createBalancer: continuing a broken answer on another deployment', () => {
  const capable = { a: { continuation: true }, b: { continuation: true }, c: { continuation: true } };
  const toContinuationBody: ExecuteRequest['toContinuationBody'] = (target, delivered) =>
    JSON.stringify({ model: target.model, prefill: delivered.prefix, spent: delivered.completionTokens });
  const texts = (
    batches: readonly (readonly { chunk: { choices?: { delta?: { content?: string | null } }[] } }[])[],
  ) =>
    batches
      .flat()
      .map((event) => event.chunk.choices?.[0]?.delta?.content ?? '')
      .join('');

  async function readAll(result: ExecuteResult) {
    const batches = [result.head];
    for await (const batch of result.rest) batches.push(batch);
    return batches;
  }

  it('a stream cut after its first token goes on from the next capable deployment, with the text so far as prefill', async () => {
    const { time, upstream, benched, continuations, toRequest, balancer } = setup({
      overrides: capable,
      scripts: { a: [{ kind: 'cut', after: 2 }], b: [{ kind: 'answer', tokens: 3 }] },
    });
    const result = await time.runUntil(
      balancer.execute(toRequest({ commit: 'first_content', toContinuationBody })),
    );
    const batches = await time.runUntil(readAll(result));
    expect(texts(batches)).toBe('t0 t1 t0 t1 t2 ');
    expect(JSON.parse(upstream.calls[1]?.request.body ?? '')).toEqual({
      model: 'sim-model',
      prefill: 't0 t1 ',
      spent: 2,
    });
    const last = batches.flat().at(-1)?.chunk;
    expect(last?.usage).toEqual({ prompt_tokens: 15, completion_tokens: 5, total_tokens: 20 });
    expect(result.continuations).toEqual([
      { from: 'a', to: 'b', model: 'sim-model', reason: 'upstream_stream_cut', delivered_tokens: 2 },
    ]);
    expect(continuations.map((event) => event.outcome)).toEqual(['continued']);
    expect(benched).toEqual(['a: UPSTREAM_STREAM_CUT']);
  });

  it('a continuation that breaks too is continued again, each deployment asked once', async () => {
    const { time, upstream, toRequest, balancer } = setup({
      group: ['a', 'b', 'c'],
      overrides: capable,
      scripts: {
        a: [{ kind: 'cut', after: 2 }],
        b: [{ kind: 'cut', after: 1 }],
        c: [{ kind: 'answer', tokens: 2 }],
      },
    });
    const result = await time.runUntil(
      balancer.execute(toRequest({ commit: 'first_content', toContinuationBody })),
    );
    expect(texts(await time.runUntil(readAll(result)))).toBe('t0 t1 t0 t0 t1 ');
    expect(JSON.parse(upstream.calls[2]?.request.body ?? '')).toMatchObject({
      prefill: 't0 t1 t0 ',
      spent: 3,
    });
    expect(result.continuations.map((entry) => `${entry.from}->${entry.to}`)).toEqual(['a->b', 'b->c']);
  });

  it('without a capable deployment, or when the continuation fails, the stream ends with the original break', async () => {
    const none = setup({ scripts: { a: [{ kind: 'cut', after: 2 }] } });
    const first = await none.time.runUntil(
      none.balancer.execute(none.toRequest({ commit: 'first_content', toContinuationBody })),
    );
    await expect(none.time.runUntil(readAll(first))).rejects.toMatchObject({ code: 'UPSTREAM_STREAM_CUT' });
    expect(none.upstream.callsTo('b')).toBe(0);

    const refused = setup({
      overrides: capable,
      scripts: { a: [{ kind: 'cut', after: 2 }], b: [{ kind: 'status', status: 400 }] },
    });
    const second = await refused.time.runUntil(
      refused.balancer.execute(refused.toRequest({ commit: 'first_content', toContinuationBody })),
    );
    await expect(refused.time.runUntil(readAll(second))).rejects.toMatchObject({
      code: 'UPSTREAM_STREAM_CUT',
    });
    expect(refused.continuations).toMatchObject([
      { outcome: 'failed', from: 'a', error: 'UPSTREAM_STREAM_CUT' },
    ]);
  });

  it('no continuation past max_attempts', async () => {
    const { time, upstream, toRequest, balancer, continuations } = setup({
      group: ['a', 'b', 'c'],
      overrides: capable,
      scripts: {
        a: [{ kind: 'cut', after: 1 }],
        b: [{ kind: 'cut', after: 1 }],
        c: [{ kind: 'cut', after: 1 }],
      },
    });
    const result = await time.runUntil(
      balancer.execute(toRequest({ commit: 'first_content', toContinuationBody })),
    );
    await expect(time.runUntil(readAll(result))).rejects.toMatchObject({ code: 'UPSTREAM_STREAM_CUT' });
    // 3 calls of the 4 allowed; the last break finds no deployment it has not asked
    expect(upstream.calls).toHaveLength(3);
    expect(continuations.map((event) => event.outcome)).toEqual(['continued', 'continued', 'no_deployment']);
  });

  it('a buffered answer that broke is the prefix plus the continuation', async () => {
    const { send, continuations } = setup({
      overrides: capable,
      scripts: { a: [{ kind: 'cut', after: 2 }], b: [{ kind: 'answer', tokens: 2 }] },
    });
    const result = await send({ toContinuationBody });
    expect(texts([result.head])).toBe('t0 t1 t0 t1 ');
    expect(ids(result)).toEqual(['a: UPSTREAM_STREAM_CUT', 'b: OK']);
    expect(result.deployment.id).toBe('a');
    expect(result.continuations).toHaveLength(1);
    expect(continuations).toHaveLength(1);
  });

  it('cancelling mid-continuation stops the continuing call', async () => {
    const { time, upstream, toRequest, balancer } = setup({
      overrides: capable,
      scripts: { a: [{ kind: 'cut', after: 1 }], b: [{ kind: 'answer', tokens: 5 }] },
    });
    const result = await time.runUntil(
      balancer.execute(toRequest({ commit: 'first_content', toContinuationBody })),
    );
    const iterator = result.rest[Symbol.asyncIterator]();
    await time.runUntil(iterator.next());
    await time.runUntil(iterator.next());
    result.cancel();
    expect(upstream.calls.at(-1)).toMatchObject({ deploymentId: 'b', aborted: true });
  });
});
