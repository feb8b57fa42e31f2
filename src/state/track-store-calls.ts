import { createCancelController } from '../shared/cancel-signal.js';
import type { Sleep } from '../shared/clock.js';
import { yieldToEventLoop } from '../shared/yield-to-event-loop.js';
import type { StateStore } from './state-store.js';

export interface TrackedStore {
  /** The same store; every call is counted until it settles. */
  store: StateStore;
  /** Calls not yet settled. */
  pending(): number;
  /**
   * Resolves once no call is pending, including the calls that settling ones start next (a stream
   * lease released, then its unused tokens booked back), so the store can close with nothing cut; or
   * after `maxMs` (each call is bounded by the store itself, Redis by its command timeout; this bounds
   * a store that is not). True when nothing was left pending.
   */
  settled(maxMs: number): Promise<boolean>;
}

/**
 * Counts the store calls in flight, for a shutdown that closes the store only after the finish paths
 * of the last requests (in-flight counts, stream slots, probe locks, token refunds) have run: several
 * of them are fire-and-forget by design, so nothing else waits for them.
 */
export function trackStoreCalls(inner: StateStore, sleep: Sleep): TrackedStore {
  let pending = 0;
  let waiters: (() => void)[] = [];
  const done = (): void => {
    pending -= 1;
    if (pending > 0) return;
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake();
  };
  const track = <T>(call: Promise<T>): Promise<T> => {
    pending += 1;
    call.then(done, done);
    return call;
  };
  const store: StateStore = {
    getCooldowns: (ids) => track(inner.getCooldowns(ids)),
    setCooldown: (id, record) => track(inner.setCooldown(id, record)),
    clearCooldown: (id) => track(inner.clearCooldown(id)),
    acquireProbe: (id, ttlMs) => track(inner.acquireProbe(id, ttlMs)),
    releaseProbe: (id) => track(inner.releaseProbe(id)),
    addInFlight: (id, delta) => track(inner.addInFlight(id, delta)),
    getInFlight: (ids) => track(inner.getInFlight(ids)),
    recordLatency: (sample) => track(inner.recordLatency(sample)),
    getLatencies: (ids) => track(inner.getLatencies(ids)),
    getSessionTier: (key) => track(inner.getSessionTier(key)),
    raiseSessionTier: (session) => track(inner.raiseSessionTier(session)),
    consumeWindow: (request) => track(inner.consumeWindow(request)),
    consumePeriod: (request) => track(inner.consumePeriod(request)),
    acquireSlot: (request) => track(inner.acquireSlot(request)),
    releaseSlot: (key) => track(inner.releaseSlot(key)),
    close: () => inner.close(),
  };
  return {
    store,
    pending: () => pending,
    async settled(maxMs) {
      const timer = createCancelController();
      const quiet = async (): Promise<void> => {
        // a settled call's continuation may start the next one: look again after a turn of the loop
        while (pending > 0 && !timer.signal.aborted) {
          await new Promise<void>((resolve) => waiters.push(resolve));
          await yieldToEventLoop();
        }
      };
      await Promise.race([quiet(), sleep(maxMs, timer.signal).catch(() => undefined)]);
      timer.abort();
      return pending === 0;
    },
  };
}
