import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/shared/clock.js';
import { createRedisStateStore, type RedisStateStore } from '../../src/state/redis-state-store.js';

const REDIS_URL = process.env['AUTOTIER_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const LEASE_MS = 15_000;

/** Two router instances on one Redis namespace, on one manual clock; heartbeats too rare to fire. */
async function twoInstances(): Promise<{ a: RedisStateStore; b: RedisStateStore; clock: ManualClock }> {
  const clock = createManualClock(Date.now());
  const prefix = `test-${randomUUID()}`;
  const open = () =>
    createRedisStateStore({
      url: REDIS_URL,
      clock,
      prefix,
      cacheMs: 0,
      leaseMs: LEASE_MS,
      heartbeatMs: 3_600_000,
    });
  const a = open();
  const b = open();
  expect(await a.ready(2000)).toBe(true);
  expect(await b.ready(2000)).toBe(true);
  return { a, b, clock };
}

describe('in-flight counts and stream slots as per-instance leases', () => {
  const opened: RedisStateStore[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  const start = async () => {
    const instances = await twoInstances();
    opened.push(instances.a, instances.b);
    return instances;
  };

  it('sums the in-flight counts of all live instances', async () => {
    const { a, b } = await start();
    await Promise.all([a.addInFlight('d', 1), a.addInFlight('d', 1), b.addInFlight('d', 1)]);
    expect((await a.getInFlight(['d'])).get('d')).toBe(3);
    expect((await b.getInFlight(['d'])).get('d')).toBe(3);
  });

  it('stops counting an instance whose lease was not renewed within the lease time', async () => {
    const { a, b, clock } = await start();
    await a.addInFlight('d', 2);
    await b.addInFlight('d', 1);
    clock.advance(LEASE_MS + 1);
    // b's own count comes from its process; a stopped renewing (as a crashed instance does)
    expect((await b.getInFlight(['d'])).get('d')).toBe(1);
  });

  it('holds a stream limit across instances and frees the slots of a lapsed instance', async () => {
    const { a, b, clock } = await start();
    const slot = { key: 'key:team:streams', limit: 2, ttlMs: 60_000 };
    expect(await a.acquireSlot(slot)).toBe(true);
    expect(await a.acquireSlot(slot)).toBe(true);
    expect(await b.acquireSlot(slot)).toBe(false);
    clock.advance(LEASE_MS + 1);
    expect(await b.acquireSlot(slot)).toBe(true);
  });

  it('stops counting a closed instance at once', async () => {
    const { a, b } = await start();
    await a.addInFlight('d', 2);
    await a.close();
    expect((await b.getInFlight(['d'])).get('d') ?? 0).toBe(0);
  });
});
