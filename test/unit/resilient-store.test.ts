import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observe/logger.js';
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
