import type { StateStore } from './state-store.js';

export interface SlotsWhileDown {
  /** A slot asked for while the shared store is down: granted under the `open` policy only. */
  grant(key: string): boolean;
  /** True when the release belonged to a slot granted here (the shared store never counted it). */
  release(key: string): boolean;
  /**
   * Has the shared store count the slots granted here that are still held, once it answers again,
   * so its count is the true one; a slot it cannot take back stays here (rejects with the error).
   */
  handOver(shared: StateStore): Promise<void>;
}

/** A limit no count reaches: handing over a slot already granted is not a new admission. */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * Stream slots granted while the shared store was down. Keyed by slot key, which the key limiter
 * makes from API key names in the table, so the map is bounded by the table.
 */
export function createSlotsWhileDown(policy: 'open' | 'closed'): SlotsWhileDown {
  const granted = new Map<string, number>();
  let handingOver = false;
  const add = (key: string, delta: number): void => {
    const count = (granted.get(key) ?? 0) + delta;
    if (count <= 0) granted.delete(key);
    else granted.set(key, count);
  };
  return {
    grant(key) {
      if (policy === 'closed') return false;
      add(key, 1);
      return true;
    },
    release(key) {
      if (!granted.has(key)) return false;
      add(key, -1);
      return true;
    },
    async handOver(shared) {
      if (handingOver) return;
      handingOver = true;
      try {
        for (let key = granted.keys().next().value; key !== undefined; key = granted.keys().next().value) {
          add(key, -1); // taken out first: a release meanwhile goes to the shared store, which has it
          try {
            await shared.acquireSlot({ key, limit: NO_LIMIT, ttlMs: 0 });
          } catch (error) {
            add(key, 1);
            throw error;
          }
        }
      } finally {
        handingOver = false;
      }
    },
  };
}
