import type { Clock } from '../shared/clock.js';
import { createSessionLadders } from './session-ladders.js';
import type { CooldownRecord, StateStore } from './state-store.js';
import { stepWindow, type WindowBuckets } from './window-counter.js';

export interface MemoryStateStoreOptions {
  clock: Clock;
  /** Session ladders kept; the least recently raised goes first. @default 100000 */
  maxSessions?: number;
  /** Told how many sessions were dropped to stay under `maxSessions` (metrics). */
  onEvict?: (count: number) => void;
}

export interface MemoryStateStore extends StateStore {
  /** Session ladders held now (at most `maxSessions`). */
  sessionCount(): number;
}

function pick<T>(source: ReadonlyMap<string, T>, ids: readonly string[]): Map<string, T> {
  const result = new Map<string, T>();
  for (const id of ids) {
    const value = source.get(id);
    if (value !== undefined) result.set(id, value);
  }
  return result;
}

/** The embedded default: state in this process only. */
export function createMemoryStateStore(options: MemoryStateStoreOptions): MemoryStateStore {
  const cooldowns = new Map<string, CooldownRecord>();
  const probes = new Map<string, number>();
  const inFlight = new Map<string, number>();
  const latencies = new Map<string, number>();
  // keyed by hashed session ids (client-chosen, so capped); the other maps are keyed by deployment
  // ids and API key names from the routing table
  const sessions = createSessionLadders(options);
  const windows = new Map<string, WindowBuckets>();
  const periods = new Map<string, { period: string; total: number }>();
  const slots = new Map<string, number>();
  return {
    getCooldowns: (ids) => Promise.resolve(pick(cooldowns, ids)),
    setCooldown(id, record) {
      const existing = cooldowns.get(id);
      cooldowns.set(
        id,
        existing !== undefined && existing.until > record.until
          ? { ...existing, failures: record.failures }
          : record,
      );
      probes.delete(id);
      return Promise.resolve();
    },
    clearCooldown(id) {
      cooldowns.delete(id);
      probes.delete(id);
      return Promise.resolve();
    },
    acquireProbe(id, ttlMs) {
      const now = options.clock.now();
      const heldUntil = probes.get(id);
      if (heldUntil !== undefined && heldUntil > now) return Promise.resolve(false);
      probes.set(id, now + ttlMs);
      return Promise.resolve(true);
    },
    releaseProbe(id) {
      probes.delete(id);
      return Promise.resolve();
    },
    addInFlight(id, delta) {
      // kept at 0, not deleted: one entry per deployment, and a delete-then-set per request makes
      // the map reallocate its table every time
      inFlight.set(id, Math.max(0, (inFlight.get(id) ?? 0) + delta));
      return Promise.resolve();
    },
    getInFlight(ids) {
      // a deployment at 0 is left out: readers treat absent as 0, and a drained store reads empty
      const counts = new Map<string, number>();
      for (const id of ids) {
        const count = inFlight.get(id) ?? 0;
        if (count > 0) counts.set(id, count);
      }
      return Promise.resolve(counts);
    },
    recordLatency({ id, milliseconds, alpha }) {
      const previous = latencies.get(id);
      latencies.set(
        id,
        previous === undefined ? milliseconds : alpha * milliseconds + (1 - alpha) * previous,
      );
      return Promise.resolve();
    },
    getLatencies: (ids) => Promise.resolve(pick(latencies, ids)),
    getSessionTier: (key) => Promise.resolve(sessions.get(key)),
    raiseSessionTier(session) {
      sessions.raise(session);
      return Promise.resolve();
    },
    consumeWindow(request) {
      let buckets = windows.get(request.key);
      if (buckets === undefined) {
        buckets = new Map();
        windows.set(request.key, buckets);
      }
      const decision = stepWindow(Object.assign({}, request, { buckets, now: options.clock.now() }));
      if (buckets.size === 0) windows.delete(request.key);
      return Promise.resolve(decision);
    },
    consumePeriod(request) {
      const entry = periods.get(request.key);
      const total = entry?.period === request.period ? entry.total : 0;
      if (request.enforce && total + request.amount > request.limit) {
        return Promise.resolve({ allowed: false, total, retryAfterMs: request.ttlMs });
      }
      periods.set(request.key, { period: request.period, total: total + request.amount });
      return Promise.resolve({ allowed: true, total: total + request.amount, retryAfterMs: 0 });
    },
    acquireSlot({ key, limit }) {
      const taken = slots.get(key) ?? 0;
      if (taken >= limit) return Promise.resolve(false);
      slots.set(key, taken + 1);
      return Promise.resolve(true);
    },
    releaseSlot(key) {
      const taken = (slots.get(key) ?? 0) - 1;
      if (taken <= 0) slots.delete(key);
      else slots.set(key, taken);
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
    sessionCount: () => sessions.size(),
  };
}
