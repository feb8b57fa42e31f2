import { describe, expect, it } from 'vitest';
import { toSessionKey } from '../../src/policy/session-key.js';
import { createManualClock } from '../../src/shared/clock.js';
import { createMemoryStateStore } from '../../src/state/create-memory-state-store.js';

describe('session ladders under a flood of distinct ids', () => {
  it('keeps the memory store at its cap through 6,000 distinct 8 kB session ids, and counts the drops', async () => {
    const clock = createManualClock(0);
    let evicted = 0;
    const store = createMemoryStateStore({
      clock,
      maxSessions: 1000,
      onEvict: (count) => (evicted += count),
    });
    const padding = 'x'.repeat(8192);
    for (let index = 0; index < 6000; index += 1) {
      clock.advance(1);
      const key = toSessionKey({ keyName: 'team', sessionId: `${index}-${padding}` });
      expect(key).toHaveLength(43);
      await store.raiseSessionTier({ key: key ?? '', rank: 1, ttlMs: 30 * 60_000 });
    }
    expect(store.sessionCount()).toBe(1000);
    expect(evicted).toBe(5000);
    const newest = toSessionKey({ keyName: 'team', sessionId: `5999-${padding}` }) ?? '';
    const oldest = toSessionKey({ keyName: 'team', sessionId: `0-${padding}` }) ?? '';
    expect(await store.getSessionTier(newest)).toBe(1);
    expect(await store.getSessionTier(oldest)).toBeUndefined();
  });

  it('lets expired sessions go without counting them as evictions', async () => {
    const clock = createManualClock(0);
    let evicted = 0;
    const store = createMemoryStateStore({ clock, maxSessions: 10, onEvict: (count) => (evicted += count) });
    for (let index = 0; index < 10; index += 1)
      await store.raiseSessionTier({ key: `old-${index}`, rank: 1, ttlMs: 1000 });
    clock.advance(2000);
    for (let index = 0; index < 10; index += 1)
      await store.raiseSessionTier({ key: `new-${index}`, rank: 1, ttlMs: 1000 });
    expect(store.sessionCount()).toBe(10);
    expect(evicted).toBe(0);
  });
});
