import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/shared/clock.js';
import { createMemoryStateStore } from '../../src/state/create-memory-state-store.js';
import { createResilientStore } from '../../src/state/create-resilient-store.js';
import { createRedisStateStore, type RedisStateStore } from '../../src/state/redis-state-store.js';
import type { StateStore } from '../../src/state/state-store.js';
import { silentLogger } from '../../src/shared/logger.js';

const REDIS_URL = process.env['AUTOTIER_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

/** Caps and callbacks a test may set on every implementation. */
interface StoreSettings {
  maxSessions?: number;
  onEvict?: (count: number) => void;
}

interface Subject {
  name: string;
  create(clock: ManualClock, settings: StoreSettings): { store: StateStore; ready: () => Promise<boolean> };
}

const connected = (store: StateStore) => ({ store, ready: () => Promise.resolve(true) });
const redisAt = (clock: ManualClock, settings: StoreSettings): RedisStateStore =>
  createRedisStateStore({ url: REDIS_URL, clock, prefix: `test-${randomUUID()}`, cacheMs: 0, ...settings });

/** The same contract runs against every implementation. */
const subjects: Subject[] = [
  { name: 'memory', create: (clock, settings) => connected(createMemoryStateStore({ clock, ...settings })) },
  {
    name: 'redis',
    create: (clock, settings) => {
      const redis = redisAt(clock, settings);
      return { store: redis, ready: () => redis.ready(2000) };
    },
  },
  {
    name: 'redis behind the resilient wrapper',
    create: (clock, settings) => {
      const redis = redisAt(clock, settings);
      const store = createResilientStore({
        primary: redis,
        local: createMemoryStateStore({
          clock,
          ...(settings.maxSessions === undefined ? {} : { maxSessions: settings.maxSessions }),
        }),
        logger: silentLogger,
        rateLimitsWhenDown: 'open',
      });
      return { store, ready: () => redis.ready(2000) };
    },
  },
];

const sleep = (milliseconds: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, milliseconds));

for (const subject of subjects) {
  describe(`StateStore contract: ${subject.name}`, () => {
    let store: StateStore;
    let clock: ManualClock;
    const open = async (settings: StoreSettings = {}): Promise<StateStore> => {
      clock = createManualClock(Date.now());
      const created = subject.create(clock, settings);
      store = created.store;
      expect(await created.ready()).toBe(true);
      return store;
    };
    afterEach(() => store.close());

    it('keeps the longer of two cooldowns and counts failures', async () => {
      await open();
      await store.setCooldown('d', {
        until: clock.now() + 5000.25, // sub-millisecond, as the system clock gives
        reason: 'UPSTREAM_SERVER_ERROR',
        failures: 1,
      });
      await store.setCooldown('d', {
        until: clock.now() + 1000,
        reason: 'UPSTREAM_RATE_LIMITED',
        failures: 2,
      });
      const record = (await store.getCooldowns(['d', 'other'])).get('d');
      expect(record).toEqual({ until: clock.now() + 5000.25, reason: 'UPSTREAM_SERVER_ERROR', failures: 2 });
      await store.clearCooldown('d');
      expect((await store.getCooldowns(['d'])).size).toBe(0);
    });

    it('gives the half-open probe to exactly one caller until released', async () => {
      await open();
      const results = await Promise.all([
        store.acquireProbe('d', 10_000),
        store.acquireProbe('d', 10_000),
        store.acquireProbe('d', 10_000),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      await store.releaseProbe('d');
      expect(await store.acquireProbe('d', 10_000)).toBe(true);
    });

    it('counts requests in flight per deployment', async () => {
      await open();
      await Promise.all([store.addInFlight('a', 1), store.addInFlight('a', 1), store.addInFlight('b', 1)]);
      await store.addInFlight('a', -1);
      const counts = await store.getInFlight(['a', 'b', 'c']);
      expect(counts.get('a')).toBe(1);
      expect(counts.get('b')).toBe(1);
      expect(counts.get('c') ?? 0).toBe(0);
    });

    it('folds latency samples into an EWMA', async () => {
      await open();
      await store.recordLatency({ id: 'a', milliseconds: 100, alpha: 0.5 });
      await store.recordLatency({ id: 'a', milliseconds: 200, alpha: 0.5 });
      expect((await store.getLatencies(['a'])).get('a')).toBeCloseTo(150);
    });

    it('raises a session ladder and never lowers it', async () => {
      await open();
      expect(await store.getSessionTier('s')).toBeUndefined();
      await store.raiseSessionTier({ key: 's', rank: 3, ttlMs: 60_000 });
      await store.raiseSessionTier({ key: 's', rank: 1, ttlMs: 60_000 });
      expect(await store.getSessionTier('s')).toBe(3);
    });

    it('holds a sliding-window limit exactly under concurrent calls, and reopens as the window slides', async () => {
      await open();
      const request = { key: 'rpm', amount: 1, limit: 10, windowMs: 60_000, enforce: true };
      const decisions = await Promise.all(Array.from({ length: 25 }, () => store.consumeWindow(request)));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10);
      const denied = decisions.find((decision) => !decision.allowed);
      expect(denied?.retryAfterMs).toBeGreaterThan(59_000);
      clock.advance(61_000);
      expect((await store.consumeWindow(request)).allowed).toBe(true);
    });

    it('adds unenforced amounts past the limit (usage known afterwards)', async () => {
      await open();
      await store.consumeWindow({ key: 'tpm', amount: 900, limit: 1000, windowMs: 60_000, enforce: true });
      expect(
        (
          await store.consumeWindow({
            key: 'tpm',
            amount: 500,
            limit: 1000,
            windowMs: 60_000,
            enforce: false,
          })
        ).total,
      ).toBe(1400);
      expect(
        (await store.consumeWindow({ key: 'tpm', amount: 1, limit: 1000, windowMs: 60_000, enforce: true }))
          .allowed,
      ).toBe(false);
    });

    it('returns a settled amount to the bucket it was booked in, and drops it once that bucket left', async () => {
      await open();
      const window = { key: 'tpm', limit: 1000, windowMs: 60_000 };
      const bookedAt = clock.now();
      await store.consumeWindow({ ...window, amount: 900, enforce: true });
      clock.advance(30_000);
      const refund = { ...window, amount: -600, enforce: false, bookAt: bookedAt };
      expect((await store.consumeWindow(refund)).total).toBe(300);
      // the refunded bucket leaves the window with the reservation, not 30 s later
      clock.advance(31_000);
      expect((await store.consumeWindow({ ...window, amount: 1000, enforce: true })).allowed).toBe(true);
      clock.advance(61_000);
      expect((await store.consumeWindow({ ...refund, bookAt: clock.now() - 61_000 })).total).toBe(0);
    });

    it('counts a period quota and starts over in a new period', async () => {
      await open();
      const day = { key: 'rpd', amount: 1, limit: 2, ttlMs: 90_000_000, enforce: true };
      expect((await store.consumePeriod({ ...day, period: '2026-11-29' })).allowed).toBe(true);
      expect((await store.consumePeriod({ ...day, period: '2026-11-29' })).allowed).toBe(true);
      expect((await store.consumePeriod({ ...day, period: '2026-11-29' })).allowed).toBe(false);
      expect((await store.consumePeriod({ ...day, period: '2026-11-30' })).allowed).toBe(true);
    });

    it('hands out at most `limit` slots at once', async () => {
      await open();
      const results = await Promise.all(
        Array.from({ length: 5 }, () => store.acquireSlot({ key: 'streams', limit: 2, ttlMs: 60_000 })),
      );
      expect(results.filter(Boolean)).toHaveLength(2);
      await store.releaseSlot('streams');
      expect(await store.acquireSlot({ key: 'streams', limit: 2, ttlMs: 60_000 })).toBe(true);
    });

    it('never counts a deployment below zero in flight', async () => {
      await open();
      await store.addInFlight('a', -1);
      await store.addInFlight('a', 1);
      expect((await store.getInFlight(['a'])).get('a')).toBe(1);
    });

    it('frees no extra slot for releases beyond the slots taken', async () => {
      await open();
      const slot = { key: 'streams', limit: 1, ttlMs: 60_000 };
      expect(await store.acquireSlot(slot)).toBe(true);
      await Promise.all([store.releaseSlot('streams'), store.releaseSlot('streams')]);
      const results = await Promise.all([store.acquireSlot(slot), store.acquireSlot(slot)]);
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('keeps at most maxSessions session ladders, dropping the least recently raised first', async () => {
      let evicted = 0;
      await open({ maxSessions: 3, onEvict: (count) => (evicted += count) });
      const raise = async (key: string, rank: number): Promise<void> => {
        clock.advance(1); // one raise a millisecond, as real traffic has
        await store.raiseSessionTier({ key, rank, ttlMs: 60_000 });
      };
      for (const name of ['s1', 's2', 's3']) await raise(name, 1);
      await raise('s1', 2); // s1 is now the most recently raised
      await raise('s4', 1);
      await raise('s5', 1);
      const ranks = await Promise.all(
        ['s1', 's2', 's3', 's4', 's5'].map((name) => store.getSessionTier(name)),
      );
      expect(ranks).toEqual([2, undefined, undefined, 1, 1]);
      expect(evicted).toBe(2);
    });

    it('forgets a session after its window', async () => {
      await open();
      await store.raiseSessionTier({ key: 'short', rank: 2, ttlMs: 50 });
      clock.advance(60);
      await sleep(80);
      expect(await store.getSessionTier('short')).toBeUndefined();
    });
  });
}

describe('the resilient store when Redis is unreachable', () => {
  it('serves on local state, counts the errors, and applies the rate-limit policy', async () => {
    const clock = createManualClock(Date.now());
    const unreachable = createRedisStateStore({ url: 'redis://127.0.0.1:1', clock, commandTimeoutMs: 50 });
    const local = createMemoryStateStore({ clock });
    const open = createResilientStore({
      primary: unreachable,
      local,
      logger: silentLogger,
      rateLimitsWhenDown: 'open',
    });
    await open.setCooldown('d', { until: clock.now() + 1000, reason: 'X', failures: 1 });
    expect((await open.getCooldowns(['d'])).get('d')?.reason).toBe('X');
    expect(open.degraded()).toBe(true);
    expect(open.errorCount()).toBeGreaterThan(0);
    expect(
      (await open.consumeWindow({ key: 'k', amount: 5, limit: 1, windowMs: 1000, enforce: true })).allowed,
    ).toBe(true);
    const closed = createResilientStore({
      primary: unreachable,
      local,
      logger: silentLogger,
      rateLimitsWhenDown: 'closed',
    });
    expect(
      (await closed.consumeWindow({ key: 'k', amount: 1, limit: 100, windowMs: 1000, enforce: true }))
        .allowed,
    ).toBe(false);
    await open.close();
  });
});
