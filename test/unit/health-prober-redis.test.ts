import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startHealthProber, type HealthProber } from '../../src/balance/start-health-prober.js';
import { routingTableSchema } from '../../src/config/routing-table-schema.js';
import { systemClock, systemSleep } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMemoryStateStore } from '../../src/state/create-memory-state-store.js';
import { createResilientStore } from '../../src/state/create-resilient-store.js';
import { createRedisStateStore, type RedisStateStore } from '../../src/state/redis-state-store.js';
import type { StateStore } from '../../src/state/state-store.js';
import type { HealthCheck } from '../../src/upstream/health-check.js';

const REDIS_URL = process.env['AUTOTIER_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
/** Probe intervals of this test, ms: apart enough from the look-in period (100 ms) to tell one probe per interval from two. */
const FIRST_INTERVAL_MS = 400;
const MAX_INTERVAL_MS = 800;
/** Time between taking the slot and recording the probe, on a loaded machine, ms. */
const SLACK_MS = 150;

const table = routingTableSchema.parse({
  deployments: [{ id: 'a', model: 'm', base_url: 'http://a.invalid/v1', context_window: 8192 }],
  tiers: Object.fromEntries(
    ['SIMPLE', 'MODERATE', 'COMPLEX', 'EXPERT'].map((tier) => [tier, { group: ['a'] }]),
  ),
  balancer: { health_probes: { first_interval_ms: FIRST_INTERVAL_MS, max_interval_ms: MAX_INTERVAL_MS } },
});

interface Instance {
  store: StateStore;
  redis: RedisStateStore;
  prober: HealthProber;
  /** Real-time ms of each probe this instance made. */
  probes: number[];
}

/** A health check that is down until `up` is set; shared by the instances, each with its own list. */
const fleet = { up: false };

/**
 * Each instance reads cooldowns through the Redis store's read cache, so it sees another instance's
 * failed probe (and its failure count) only once its cache entry is older than `cacheMs`; at the
 * default 500 ms that is within the default 1 s first interval, and here 100 ms within 400 ms.
 */
const CACHE_MS = 100;

function startInstance(prefix: string): Instance {
  const redis = createRedisStateStore({ url: REDIS_URL, clock: systemClock, prefix, cacheMs: CACHE_MS });
  const store = createResilientStore({
    primary: redis,
    local: createMemoryStateStore({ clock: systemClock }),
    logger: silentLogger,
    rateLimitsWhenDown: 'open',
    connected: () => redis.connected(),
  });
  const probes: number[] = [];
  const healthCheck: HealthCheck = {
    check() {
      probes.push(performance.now());
      return Promise.resolve({ healthy: fleet.up, detail: fleet.up ? 'status 200' : 'status 503' });
    },
    close: () => Promise.resolve(),
  };
  const prober = startHealthProber({
    store,
    healthCheck,
    clock: systemClock,
    sleep: systemSleep,
    logger: silentLogger,
    table: () => table,
  });
  return { store, redis, prober, probes };
}

describe('health probes with several instances on one Redis', () => {
  const instances: Instance[] = [];
  afterEach(async () => {
    for (const instance of instances.splice(0)) {
      await instance.prober.stop();
      await instance.store.close();
    }
    fleet.up = false;
  });

  it('probes a benched deployment once per interval across two instances, and both see it back in service', async () => {
    const prefix = `test-${randomUUID()}`;
    instances.push(startInstance(prefix), startInstance(prefix));
    const [one, two] = instances as [Instance, Instance];
    expect(await one.redis.ready(2000)).toBe(true);
    expect(await two.redis.ready(2000)).toBe(true);
    await one.store.setCooldown('a', {
      until: Date.now() + 60_000,
      reason: 'UPSTREAM_SERVER_ERROR',
      failures: 1,
    });
    const all = (): number[] => [...one.probes, ...two.probes].sort((x, y) => x - y);
    // slots of 400, 800, 800, ... ms: 5 probes take at least 2.8 s
    await expect.poll(() => all().length, { timeout: 10_000, interval: 50 }).toBeGreaterThanOrEqual(5);
    const times = all();
    const gaps = times.slice(1).map((time, index) => time - (times[index] ?? 0));
    for (const gap of gaps)
      expect(gap, `gaps ${gaps.map(Math.round).join(', ')}`).toBeGreaterThan(FIRST_INTERVAL_MS - SLACK_MS);
    // the failure count is shared: the slots grew to the cap on both instances
    expect(
      gaps.slice(1).every((gap) => gap > MAX_INTERVAL_MS - SLACK_MS),
      `gaps ${gaps.map(Math.round).join(', ')}`,
    ).toBe(true);
    fleet.up = true;
    const backInService = async (instance: Instance): Promise<boolean> =>
      !(await instance.store.getCooldowns(['a'])).has('a');
    await expect.poll(() => backInService(one), { timeout: 5000, interval: 50 }).toBe(true);
    await expect.poll(() => backInService(two), { timeout: 5000, interval: 50 }).toBe(true);
  });
});
