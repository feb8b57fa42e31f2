import { afterEach, describe, expect, it } from 'vitest';
import { routingTableSchema, type RoutingTable } from '../config/routing-table-schema.js';
import { createCancelController } from '../shared/cancel-signal.js';
import { createRecordingLogger } from '../shared/logger.js';
import { createMemoryStateStore } from '../state/create-memory-state-store.js';
import type { CooldownRecord } from '../state/state-store.js';
import type { HealthCheck, HealthCheckRequest } from '../upstream/health-check.js';
import { createManualTime, flushPromises, type ManualTime } from '../../test/helpers/manual-time.js';
import { createScriptedUpstream } from '../../test/helpers/scripted-upstream.js';
import { TEST_RETRY_IN_PLACE, TEST_TIMEOUTS } from '../../test/helpers/balance-fixtures.js';
import { createBalancer } from './create-balancer.js';
import { decideAvailability } from './decide-availability.js';
import type { RoutePlan } from './route-plan.js';
import { startHealthProber, type HealthProber, type ProbeOutcome } from './start-health-prober.js';

const OUTAGE_MS = 60_000;

interface SetupOptions {
  /** balancer.health_probes fields. */
  probes?: Record<string, unknown>;
  /** Deployment fields of `a`. */
  primary?: Record<string, unknown>;
}

function toTable(options: SetupOptions): RoutingTable {
  const tier = { group: ['a'], fallback: ['b'] };
  return routingTableSchema.parse({
    deployments: ['a', 'b'].map((id) => ({
      id,
      model: 'sim-model',
      base_url: `http://${id}.invalid/v1`,
      context_window: 32_768,
      ...(id === 'a' ? options.primary : {}),
    })),
    tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
    balancer: { health_probes: options.probes ?? {} },
  });
}

/** A health check whose deployments are up or down as the test says; it records every probe. */
function createFakeHealthCheck(time: ManualTime) {
  const down = new Set<string>();
  const probes: { id: string; at: number; kind: string }[] = [];
  const check: HealthCheck = {
    check(request: HealthCheckRequest) {
      probes.push({ id: request.deployment.id, at: time.clock.now(), kind: request.kind });
      const healthy = !down.has(request.deployment.id);
      return Promise.resolve({ healthy, detail: healthy ? 'status 200' : 'status 503' });
    },
    close: () => Promise.resolve(),
  };
  return { check, down, probes };
}

const probers: HealthProber[] = [];
afterEach(async () => {
  await Promise.all(probers.splice(0).map((prober) => prober.stop()));
});

function setup(options: SetupOptions = {}) {
  const time = createManualTime();
  const store = createMemoryStateStore({ clock: time.clock });
  const table = toTable(options);
  const health = createFakeHealthCheck(time);
  const logger = createRecordingLogger();
  const outcomes: string[] = [];
  const prober = startHealthProber({
    store,
    healthCheck: health.check,
    clock: time.clock,
    sleep: time.sleep,
    logger,
    table: () => table,
    onProbe: (id: string, outcome: ProbeOutcome) => outcomes.push(`${id}: ${outcome}`),
  });
  probers.push(prober);
  const start = time.clock.now();
  /** Probe times of `a`, in ms since the start. */
  const probeTimes = (): number[] => health.probes.filter((p) => p.id === 'a').map((p) => p.at - start);
  const cooldownOf = async (id: string): Promise<CooldownRecord | undefined> =>
    (await store.getCooldowns([id])).get(id);
  return { time, store, table, health, logger, outcomes, prober, start, probeTimes, cooldownOf };
}

/** `a` benched the way the balancer benches after one 503 (cooldown_ms 5000). */
const benchAfterOneFailure = (now: number): CooldownRecord => ({
  until: now + 5000,
  reason: 'UPSTREAM_SERVER_ERROR',
  failures: 1,
});

describe('startHealthProber: a benched deployment', () => {
  it('is probed at the capped backoff through a 60 s outage and back in service within 10 s of recovery, with no user request', async () => {
    const { time, store, health, probeTimes, cooldownOf, start, outcomes } = setup();
    await flushPromises();
    health.down.add('a');
    await store.setCooldown('a', benchAfterOneFailure(start));
    // While it is down, each failed probe keeps it benched past the next one: no user request may probe.
    while (time.clock.now() - start < OUTAGE_MS) {
      await time.advance(250);
      const availability = decideAvailability({
        inFlight: 0,
        maxConcurrency: 64,
        cooldown: await cooldownOf('a'),
        now: time.clock.now(),
      });
      expect(availability.kind, `at ${time.clock.now() - start} ms`).toBe('skip');
    }
    expect(probeTimes()).toEqual([250, 1250, 3250, 7250, 15_250, 25_250, 35_250, 45_250, 55_250]);
    health.down.delete('a');
    const recoveredAt = time.clock.now();
    while ((await cooldownOf('a')) !== undefined) await time.advance(250);
    const backAfterMs = time.clock.now() - recoveredAt;
    expect(probeTimes().at(-1)).toBe(65_250);
    expect(backAfterMs).toBe(5250);
    expect(backAfterMs).toBeLessThanOrEqual(10_000);
    expect(outcomes.filter((outcome) => outcome === 'a: unhealthy')).toHaveLength(9);
    expect(outcomes.at(-1)).toBe('a: healthy');
  });

  it('comes back within max_interval_ms (10 s) wherever in the cycle it recovers', async () => {
    const worst: number[] = [];
    for (let offset = 0; offset < 10_000; offset += 250) {
      const { time, store, health, cooldownOf, start, prober } = setup();
      await flushPromises();
      health.down.add('a');
      await store.setCooldown('a', benchAfterOneFailure(start));
      await time.advance(OUTAGE_MS + offset);
      health.down.delete('a');
      const recoveredAt = time.clock.now();
      while ((await cooldownOf('a')) !== undefined) await time.advance(250);
      worst.push(time.clock.now() - recoveredAt);
      await prober.stop();
    }
    expect(Math.max(...worst)).toBeLessThanOrEqual(10_000);
    expect(Math.min(...worst)).toBeGreaterThanOrEqual(0);
  });

  it('logs each failed probe and the return to service', async () => {
    const { time, store, health, logger, start } = setup();
    await flushPromises();
    health.down.add('a');
    await store.setCooldown('a', benchAfterOneFailure(start));
    await time.advance(250);
    health.down.delete('a');
    await time.advance(1000);
    const lines = logger.lines.map(({ level, message, fields }) => ({ level, message, fields }));
    expect(lines).toContainEqual({
      level: 'warn',
      message: 'health probe failed',
      fields: {
        deployment: 'a',
        probe: 'health',
        reason: 'UPSTREAM_SERVER_ERROR',
        detail: 'status 503',
        failures: 2,
        next_probe_in_ms: 1000,
      },
    });
    expect(lines).toContainEqual({
      level: 'info',
      message: 'deployment back in service',
      fields: { deployment: 'a', probe: 'health', reason: 'UPSTREAM_SERVER_ERROR', failures: 2 },
    });
    expect(health.probes.map((probe) => probe.id)).toEqual(['a', 'a']);
  });

  it('keeps the cooldown of a deployment whose /health answered all along while a request failed (flapping)', async () => {
    const { time, store, health, cooldownOf, start, logger } = setup();
    await flushPromises();
    await store.setCooldown('a', benchAfterOneFailure(start));
    await time.advance(4750);
    expect(health.probes.length).toBeGreaterThanOrEqual(3);
    expect(await cooldownOf('a')).toEqual(benchAfterOneFailure(start));
    expect(logger.lines.map((line) => line.message)).not.toContain('deployment back in service');
  });

  it('puts a deployment benched for refused connections back at its first healthy probe', async () => {
    const { time, store, cooldownOf, start, probeTimes } = setup();
    await flushPromises();
    await store.setCooldown('a', { ...benchAfterOneFailure(start), reason: 'UPSTREAM_CONNECT_FAILED' });
    await time.advance(250);
    expect(probeTimes()).toEqual([250]);
    expect(await cooldownOf('a')).toBeUndefined();
  });

  it('uses the probe kind of the deployment, and none turns its probes off', async () => {
    const models = setup({ primary: { health_probe: 'models' } });
    await models.store.setCooldown('a', benchAfterOneFailure(models.start));
    await models.time.advance(250);
    expect(models.health.probes.map((probe) => probe.kind)).toEqual(['models']);
    const none = setup({ primary: { health_probe: 'none' } });
    await none.store.setCooldown('a', benchAfterOneFailure(none.start));
    await none.time.advance(10_000);
    expect(none.health.probes).toEqual([]);
  });

  it('leaves a rate-limited deployment to its Retry-After, and probes nothing when disabled', async () => {
    const limited = setup();
    await limited.store.setCooldown('a', {
      ...benchAfterOneFailure(limited.start),
      reason: 'UPSTREAM_RATE_LIMITED',
    });
    await limited.time.advance(10_000);
    expect(limited.health.probes).toEqual([]);
    const disabled = setup({ probes: { enabled: false } });
    await disabled.store.setCooldown('a', benchAfterOneFailure(disabled.start));
    await disabled.time.advance(10_000);
    expect(disabled.health.probes).toEqual([]);
    expect(await disabled.cooldownOf('a')).toBeDefined();
  });

  it('does not bench again a deployment that came back while its probe failed', async () => {
    const { time, store, start, cooldownOf, prober: own } = setup();
    await own.stop();
    const slow: HealthCheck = {
      // fails, but only after a user request has cleared the cooldown meanwhile
      check: async () => {
        await store.clearCooldown('a');
        return { healthy: false, detail: 'timeout' };
      },
      close: () => Promise.resolve(),
    };
    const prober = startHealthProber({
      store,
      healthCheck: slow,
      clock: time.clock,
      sleep: time.sleep,
      logger: createRecordingLogger(),
      table: () => toTable({}),
    });
    probers.push(prober);
    await store.setCooldown('a', benchAfterOneFailure(start));
    await time.advance(250);
    expect(await cooldownOf('a')).toBeUndefined();
  });

  it('stops: no look at the store and no probe after stop() resolves', async () => {
    const { time, store, health, prober, start } = setup();
    await prober.stop();
    expect(time.pending()).toBe(0);
    await store.setCooldown('a', benchAfterOneFailure(start));
    await time.advance(5000);
    expect(health.probes).toEqual([]);
  });
});

describe('startHealthProber with the balancer: a 60 s outage of the primary', () => {
  /**
   * A request every 250 ms through the real balancer: the primary `a` fails for 60 s (503), then
   * recovers; `b` is the fallback. Returns when `a` served again, and how many calls `a` received
   * before it recovered: the first request's two (its call and its retry in place, after which `a` is
   * benched), plus any user probe.
   */
  async function runOutage(probes: Record<string, unknown>) {
    const { time, store, table, start, health } = setup({ probes });
    const upstream = createScriptedUpstream(time, { a: [{ kind: 'status', status: 503 }] });
    const balancer = createBalancer({
      upstream,
      store,
      clock: time.clock,
      random: () => 0,
      sleep: time.sleep,
      logger: createRecordingLogger(),
      table: () => table,
    });
    const deployments = new Map(table.deployments.map((deployment) => [deployment.id, deployment]));
    const plan: RoutePlan = {
      tier: 'SIMPLE',
      group: [deployments.get('a')!],
      fallback: [deployments.get('b')!],
      strategy: 'weighted',
      timeouts: TEST_TIMEOUTS,
      retryInPlace: TEST_RETRY_IN_PLACE,
    };
    const send = async (index: number): Promise<string> => {
      const result = await time.runUntil(
        balancer.execute({
          plan,
          path: '/chat/completions',
          toBody: (target) => JSON.stringify({ model: target.model }),
          signal: createCancelController().signal,
          requestId: `request-${index}`,
          commit: 'complete',
          startedAt: time.clock.now(),
          promptTokens: 10,
        }),
      );
      for await (const _batch of result.rest);
      return result.deployment.id;
    };
    await flushPromises();
    health.down.add('a');
    let servedByPrimaryAt: number | undefined;
    let callsToPrimaryBeforeRecovery = 0;
    for (let index = 0; servedByPrimaryAt === undefined; index += 1) {
      const elapsed = time.clock.now() - start;
      if (elapsed === OUTAGE_MS) {
        callsToPrimaryBeforeRecovery = upstream.callsTo('a');
        upstream.script('a', [{ kind: 'answer' }]);
        health.down.delete('a');
      }
      const servedBy = await send(index);
      if (servedBy === 'a' && elapsed >= OUTAGE_MS) servedByPrimaryAt = elapsed;
      if (elapsed > 5 * OUTAGE_MS) throw new Error('the primary never came back');
      await time.advance(250);
    }
    return { backAfterMs: servedByPrimaryAt - OUTAGE_MS, callsToPrimaryBeforeRecovery };
  }

  it('with probes (defaults): the primary serves again 5.25 s after it recovered, and no user request probed it', async () => {
    const outcome = await runOutage({});
    expect(outcome).toEqual({ backAfterMs: 5250, callsToPrimaryBeforeRecovery: 2 });
  });

  it('without probes: the primary comes back only with a user probe after its doubled cooldown (15 s), 3 user requests spent on failed probes', async () => {
    const outcome = await runOutage({ enabled: false });
    expect(outcome).toEqual({ backAfterMs: 15_000, callsToPrimaryBeforeRecovery: 5 });
  });
});
