import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/shared/logger.js';
import { createManualClock } from '../../src/shared/clock.js';
import { createMemoryStateStore } from '../../src/state/create-memory-state-store.js';
import { createResilientStore } from '../../src/state/create-resilient-store.js';
import type { StateStore } from '../../src/state/state-store.js';

/** A shared store that can be switched off: every call then rejects, as Redis would. */
function switchable(store: StateStore): { store: StateStore; down: (value: boolean) => void } {
  let isDown = false;
  const wrapped = new Proxy(store, {
    get(target, property: keyof StateStore) {
      const value: unknown = Reflect.get(target, property);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        isDown
          ? Promise.reject(new Error('connection is closed'))
          : (Reflect.apply(value, target, args) as unknown);
    },
  });
  return { store: wrapped, down: (value) => (isDown = value) };
}

/** A resilient store over a shared store that can be switched off, and that shared store itself. */
function setup() {
  const clock = createManualClock(1000);
  const shared = createMemoryStateStore({ clock });
  const primary = switchable(shared);
  const local = createMemoryStateStore({ clock });
  const store = createResilientStore({
    primary: primary.store,
    local,
    logger: silentLogger,
    rateLimitsWhenDown: 'open',
  });
  return { shared, primary, store };
}

describe('the resilient store during an outage', () => {
  it('serves the last shared view: a cooldown lifted elsewhere stays lifted when Redis goes away', async () => {
    const { shared, primary, store } = setup();
    await store.setCooldown('a', { until: 60_000, reason: 'UPSTREAM_SERVER_ERROR', failures: 1 });
    await shared.clearCooldown('a'); // another instance's successful probe
    expect((await store.getCooldowns(['a'])).size).toBe(0);
    primary.down(true);
    expect((await store.getCooldowns(['a'])).size).toBe(0);
    expect(store.degraded()).toBe(true);
  });

  it('keeps a cooldown set by another instance while Redis is away', async () => {
    const { shared, primary, store } = setup();
    await shared.setCooldown('b', { until: 60_000, reason: 'UPSTREAM_RATE_LIMITED', failures: 1 });
    await store.getCooldowns(['b']);
    primary.down(true);
    expect((await store.getCooldowns(['b'])).get('b')?.reason).toBe('UPSTREAM_RATE_LIMITED');
    primary.down(false);
    await store.getCooldowns(['b']);
    expect(store.degraded()).toBe(false);
  });
});

describe('stream slots across an outage', () => {
  const slot = (limit: number) => ({ key: 'key:team:streams', limit, ttlMs: 60_000 });
  /** Whether the shared store holds exactly `held` slots: one more fits under held + 1, none under held. */
  const holds = async (shared: StateStore, held: number): Promise<boolean> => {
    if (await shared.acquireSlot(slot(held))) {
      await shared.releaseSlot('key:team:streams');
      return false;
    }
    const fits = await shared.acquireSlot(slot(held + 1));
    if (fits) await shared.releaseSlot('key:team:streams');
    return fits;
  };

  it('hands the slots it granted during an outage to the shared store once it is back', async () => {
    const { shared, primary, store } = setup();
    expect(await store.acquireSlot(slot(5))).toBe(true);
    primary.down(true);
    expect(await store.acquireSlot(slot(5))).toBe(true); // open policy
    primary.down(false);
    await store.getInFlight(['a']); // the first answer after the outage
    await vi.waitFor(async () => expect(await holds(shared, 2)).toBe(true));
    await store.releaseSlot('key:team:streams');
    await store.releaseSlot('key:team:streams');
    expect(await holds(shared, 0)).toBe(true);
  });

  it('ends a release of a slot granted during the outage locally, not on the shared count', async () => {
    const { shared, primary, store } = setup();
    expect(await store.acquireSlot(slot(5))).toBe(true);
    primary.down(true);
    expect(await store.acquireSlot(slot(5))).toBe(true);
    await store.releaseSlot('key:team:streams');
    primary.down(false);
    await store.getInFlight(['a']);
    expect(await holds(shared, 1)).toBe(true);
  });
});
