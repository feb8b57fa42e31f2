import type { Clock } from '../shared/clock.js';
import type { ReadCache } from './read-cache.js';
import type * as scripts from './redis-scripts.js';

/** Runs one of the store's Lua scripts. */
export type RunScript = (
  name: keyof typeof scripts,
  keys: readonly string[],
  args: readonly (string | number)[],
) => Promise<unknown>;

export interface CountLeasesOptions {
  run: RunScript;
  clock: Clock;
  /** Namespaced Redis key from its parts. */
  key: (...parts: string[]) => string;
  /** This process's id in the count hashes and the live-instance zset. */
  instance: string;
  cache: ReadCache;
  /** See `RedisStateStoreOptions.leaseMs`. */
  leaseMs: number;
}

export interface CountLeases {
  addInFlight(id: string, delta: number): Promise<void>;
  getInFlight(ids: readonly string[]): Promise<ReadonlyMap<string, number>>;
  acquireSlot(request: { key: string; limit: number }): Promise<boolean>;
  releaseSlot(key: string): Promise<void>;
  /** Renews the lease and writes every true count of this instance (heartbeat, reconnect). */
  publishAll(): Promise<void>;
}

/**
 * In-flight counts and stream slots as per-instance leases. The true counts live here, in the
 * process, and change before any Redis call, so a failed call loses nothing; Redis holds a copy per
 * instance (hash field = instance) that is only ever overwritten with absolute values, and counts
 * only while the instance's lease in the live-instance zset is current.
 */
export function createCountLeases(options: CountLeasesOptions): CountLeases {
  const { run, clock, key, instance, leaseMs } = options;
  const alive = key('instances');
  /** Redis count hash -> this instance's count; kept at 0 so a publish clears the field. */
  const tallies = new Map<string, number>();
  const change = (hash: string, delta: number): number => {
    const count = Math.max(0, (tallies.get(hash) ?? 0) + delta);
    tallies.set(hash, count);
    return count;
  };
  const publish = async (hashes: readonly string[]): Promise<void> => {
    const now = clock.now();
    await run(
      'PUBLISH_COUNTS',
      [alive, ...hashes],
      [instance, now + leaseMs, now, leaseMs, ...hashes.map((hash) => tallies.get(hash) ?? 0)],
    );
  };
  const inFlightHash = (id: string): string => key('inflight', id);
  return {
    async addInFlight(id, delta) {
      change(inFlightHash(id), delta);
      await publish([inFlightHash(id)]);
    },
    async getInFlight(ids) {
      const others = await options.cache.read('inflight', ids, async (missing) => {
        const totals = (await run(
          'GET_IN_FLIGHT',
          [...missing.map(inFlightHash), alive],
          [clock.now(), instance],
        )) as number[];
        return totals.map(Number);
      });
      return new Map(ids.map((id) => [id, (others.get(id) ?? 0) + (tallies.get(inFlightHash(id)) ?? 0)]));
    },
    async acquireSlot({ key: slotKey, limit }) {
      const hash = key('slots', slotKey);
      const mine = change(hash, 1);
      let taken = false;
      try {
        const now = clock.now();
        const raw = await run(
          'ACQUIRE_SLOT',
          [hash, alive],
          [instance, mine, limit, now, now + leaseMs, leaseMs],
        );
        taken = raw === 1;
      } finally {
        if (!taken) change(hash, -1);
      }
      return taken;
    },
    async releaseSlot(slotKey) {
      const hash = key('slots', slotKey);
      change(hash, -1);
      await publish([hash]);
    },
    publishAll: () => publish([...tallies.keys()]),
  };
}
