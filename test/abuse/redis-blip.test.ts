import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/shared/logger.js';
import { systemClock } from '../../src/shared/clock.js';
import { createMemoryStateStore } from '../../src/state/create-memory-state-store.js';
import { createResilientStore, type ResilientStore } from '../../src/state/create-resilient-store.js';
import { createRedisStateStore, type RedisStateStore } from '../../src/state/redis-state-store.js';
import type { StateStore } from '../../src/state/state-store.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const REDIS = new URL(process.env['AUTOTIER_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379');
/** Short leases for the test; the defaults are a 5 s heartbeat and a 15 s lease. */
const LEASES = { heartbeatMs: 200, leaseMs: 1000 };
/** How long the connection stays cut, ms (a blip of 3 s of killed connections). */
const BLIP_MS = 3000;
/** Generous on a loaded machine: reconnecting alone may take the retry strategy's 2 s. */
const HEAL = { timeout: 15_000, interval: 50 };
const STREAMS = 'key:team:streams';

const sleep = (milliseconds: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Whether `store` sees exactly `held` stream slots taken: one more fits under held + 1, none under held. */
async function seesSlots(store: StateStore, held: number): Promise<boolean> {
  const probe = (limit: number) => store.acquireSlot({ key: STREAMS, limit, ttlMs: 60_000 });
  if (await probe(held)) {
    await store.releaseSlot(STREAMS);
    return false;
  }
  const fits = await probe(held + 1);
  if (fits) await store.releaseSlot(STREAMS);
  return fits;
}

describe('shared counts after a Redis connection blip', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** Instance A reaches Redis through a proxy the test can cut; instance B connects directly. */
  async function setup(): Promise<{
    proxy: TcpProxy;
    redisA: RedisStateStore;
    a: ResilientStore;
    b: RedisStateStore;
  }> {
    const proxy = await startTcpProxy({ host: REDIS.hostname, port: Number(REDIS.port || 6379) });
    cleanups.push(() => proxy.close());
    const prefix = `test-${randomUUID()}`;
    const through = new URL(REDIS);
    through.port = String(proxy.port);
    const redisA = createRedisStateStore({ url: through.toString(), clock: systemClock, prefix, ...LEASES });
    const a = createResilientStore({
      primary: redisA,
      local: createMemoryStateStore({ clock: systemClock }),
      logger: silentLogger,
      rateLimitsWhenDown: 'open',
    });
    // B observes: no read cache, so what it reads is what Redis holds now
    const b = createRedisStateStore({
      url: REDIS.toString(),
      clock: systemClock,
      prefix,
      cacheMs: 0,
      ...LEASES,
    });
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    expect(await redisA.ready(5000)).toBe(true);
    expect(await b.ready(5000)).toBe(true);
    return { proxy, redisA, a, b };
  }

  it('returns in-flight counts and stream slots to the truth once the connection is back', async () => {
    const { proxy, redisA, a, b } = await setup();
    const inFlight = async (store: StateStore) => (await store.getInFlight(['d'])).get('d') ?? 0;
    for (let index = 0; index < 3; index += 1) await a.addInFlight('d', 1);
    await b.addInFlight('d', 1);
    for (let index = 0; index < 2; index += 1)
      expect(await a.acquireSlot({ key: STREAMS, limit: 10, ttlMs: 60_000 })).toBe(true);
    await vi.waitFor(async () => expect(await inFlight(b)).toBe(4), HEAL);

    proxy.cut();
    const cutAt = Date.now();
    await vi.waitFor(() => expect(redisA.connected()).toBe(false), HEAL);
    // during the blip two requests finish and one starts; one stream ends and one starts
    await a.addInFlight('d', -1);
    await a.addInFlight('d', -1);
    await a.addInFlight('d', 1);
    await a.releaseSlot(STREAMS);
    expect(await a.acquireSlot({ key: STREAMS, limit: 10, ttlMs: 60_000 })).toBe(true);
    await sleep(Math.max(0, BLIP_MS - (Date.now() - cutAt))); // the blip's length, not a synchronization
    proxy.restore();

    // true now: A has 2 requests in flight and 2 streams, B has 1 request; traffic on A goes on
    await vi.waitFor(async () => {
      await a.getInFlight(['d']);
      expect(await inFlight(b)).toBe(3);
      expect(await seesSlots(b, 2)).toBe(true);
    }, HEAL);

    await a.addInFlight('d', -1);
    await a.addInFlight('d', -1);
    await b.addInFlight('d', -1);
    await a.releaseSlot(STREAMS);
    await a.releaseSlot(STREAMS);
    expect(await inFlight(b)).toBe(0);
    expect(await seesSlots(b, 0)).toBe(true);
  });

  it('stops counting an instance that cannot reach Redis once its lease lapses', async () => {
    const { proxy, a, b } = await setup();
    await a.addInFlight('d', 2);
    expect(await a.acquireSlot({ key: STREAMS, limit: 1, ttlMs: 60_000 })).toBe(true);
    expect((await b.getInFlight(['d'])).get('d')).toBe(2);
    proxy.cut(); // A lives on but cannot renew: to B it is a dead instance
    await vi.waitFor(async () => {
      expect((await b.getInFlight(['d'])).get('d') ?? 0).toBe(0);
      expect(await seesSlots(b, 0)).toBe(true);
    }, HEAL);
  });
});
