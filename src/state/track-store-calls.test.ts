import { describe, expect, it } from 'vitest';
import { createManualTime, flushPromises } from '../../test/helpers/manual-time.js';
import { systemClock } from '../shared/clock.js';
import { createMemoryStateStore } from './create-memory-state-store.js';
import type { StateStore } from './state-store.js';
import { trackStoreCalls } from './track-store-calls.js';

/** A memory store whose releaseSlot answers only when the test says so. */
function withHeldRelease(): { store: StateStore; answer: () => void } {
  const inner = createMemoryStateStore({ clock: systemClock });
  let answer: () => void = () => undefined;
  const store: StateStore = {
    ...inner,
    releaseSlot: (key) =>
      new Promise<void>((resolve) => {
        answer = () => void inner.releaseSlot(key).then(resolve);
      }),
  };
  return { store, answer: () => answer() };
}

describe('trackStoreCalls', () => {
  it('settles at once when no call is pending', async () => {
    const time = createManualTime(0);
    const tracked = trackStoreCalls(createMemoryStateStore({ clock: systemClock }), time.sleep);
    await tracked.store.addInFlight('a', 1);
    expect(tracked.pending()).toBe(0);
    expect(await tracked.settled(1000)).toBe(true);
  });

  it('waits for a pending call and for the call its settling starts next (release, then refund)', async () => {
    const time = createManualTime(0);
    const held = withHeldRelease();
    const tracked = trackStoreCalls(held.store, time.sleep);
    const { store } = tracked;
    const refunds: boolean[] = [];
    // like a key admission's finish: release the stream slot, then book the unused tokens back
    void (async () => {
      await store.releaseSlot('key:k:streams');
      const refund = await store.consumeWindow({
        key: 'k',
        amount: -5,
        limit: 10,
        windowMs: 60_000,
        enforce: false,
      });
      refunds.push(refund.allowed);
    })();
    let settled = false;
    void tracked.settled(5000).then(() => (settled = true));
    await flushPromises();
    expect([tracked.pending(), settled]).toEqual([1, false]);
    held.answer();
    await flushPromises();
    expect([tracked.pending(), settled, refunds]).toEqual([0, true, [true]]);
  });

  it('gives up after maxMs on a call that never answers, and says so', async () => {
    const time = createManualTime(0);
    const tracked = trackStoreCalls(withHeldRelease().store, time.sleep);
    void tracked.store.releaseSlot('key:k:streams');
    const outcome = tracked.settled(5000);
    await time.advance(5000);
    expect(await outcome).toBe(false);
  });
});
