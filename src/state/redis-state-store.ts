import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Clock } from '../shared/clock.js';
import { createReadCache } from './read-cache.js';
import { createCountLeases } from './redis-count-leases.js';
import * as scripts from './redis-scripts.js';
import { DEFAULT_MAX_SESSIONS } from './session-ladders.js';
import { WINDOW_BUCKETS, type CooldownRecord, type StateStore, type WindowDecision } from './state-store.js';

export interface RedisStateStoreOptions {
  url: string;
  clock: Clock;
  /** Key namespace, so several autotier deployments can share one Redis. @default 'autotier' */
  prefix?: string;
  /** How long hot reads (cooldowns, in-flight, latencies) are served from memory, ms. @default 500 */
  cacheMs?: number;
  /** Time a command may take before it counts as a Redis failure, ms. @default 1000 */
  commandTimeoutMs?: number;
  /**
   * How long this instance's in-flight counts and stream slots count without a renewal, ms: a dead
   * instance's counts stop counting after it. @default 15000
   */
  leaseMs?: number;
  /**
   * How often this instance re-publishes its true counts and renews its lease, ms; it also does so
   * right after every reconnect. A count lost in a Redis blip is right again within this. @default 5000
   */
  heartbeatMs?: number;
  /** Session ladders kept in Redis (for all instances); past it the least recently raised go. @default 100000 */
  maxSessions?: number;
  /** Told how many sessions were dropped to stay under `maxSessions` (metrics). */
  onEvict?: (count: number) => void;
}

/** How long a cooldown record outlives its deadline, so the half-open probe still sees it, ms. */
const COOLDOWN_GRACE_MS = 10 * 60_000;

type ScriptName = keyof typeof scripts;

export interface RedisStateStore extends StateStore {
  /** The ioredis client, for health checks and tests. */
  client: Redis;
  /** True while the connection is up. */
  connected(): boolean;
  /** Resolves when connected, or after `timeoutMs` (the store then works in degraded mode until Redis answers). */
  ready(timeoutMs: number): Promise<boolean>;
}

/** StateStore on Redis: atomic Lua scripts, namespaced keys with TTLs, hot reads cached briefly. */
export function createRedisStateStore(options: RedisStateStoreOptions): RedisStateStore {
  const prefix = options.prefix ?? 'autotier';
  const cacheMs = options.cacheMs ?? 500;
  const instance = randomUUID();
  const client = new Redis(options.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 1000,
    enableAutoPipelining: true,
    lazyConnect: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  client.on('error', () => undefined); // failures surface on each command and are counted by the caller
  const shas = new Map<ScriptName, string>(
    Object.keys(scripts).map((name) => [
      name as ScriptName,
      createHash('sha1')
        .update(scripts[name as ScriptName])
        .digest('hex'),
    ]),
  );

  async function run(
    name: ScriptName,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    try {
      return await client.evalsha(shas.get(name) ?? '', keys.length, ...keys, ...args);
    } catch (error) {
      if (!String((error as Error).message).includes('NOSCRIPT')) throw error;
      return client.eval(scripts[name], keys.length, ...keys, ...args);
    }
  }

  const key = (...parts: string[]): string => [prefix, ...parts].join(':');
  const alive = key('instances');
  const cache = createReadCache(options.clock, cacheMs);
  const leases = createCountLeases({
    run,
    clock: options.clock,
    key,
    instance,
    cache,
    leaseMs: options.leaseMs ?? 15_000,
  });
  const publishAll = (): void => void leases.publishAll().catch(() => undefined);
  const heartbeat = setInterval(publishAll, options.heartbeatMs ?? 5000);
  heartbeat.unref();
  client.on('ready', publishAll);

  const toDecision = (raw: unknown): WindowDecision => {
    const [allowed, total, retryAfterMs] = raw as [number, number, number];
    return { allowed: allowed === 1, total: Number(total), retryAfterMs: Number(retryAfterMs) };
  };

  return {
    client,
    connected: () => client.status === 'ready',
    ready(timeoutMs) {
      if (client.status === 'ready') return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          client.off('ready', onReady);
          resolve(false);
        }, timeoutMs);
        const onReady = (): void => {
          clearTimeout(timer);
          resolve(true);
        };
        client.once('ready', onReady);
      });
    },
    async getCooldowns(ids) {
      return cache.read('cooldown', ids, async (missing) => {
        const records = await Promise.all(missing.map((id) => client.hgetall(key('cooldown', id))));
        return records.map((record) =>
          record['until'] === undefined
            ? undefined
            : {
                until: Number(record['until']),
                reason: record['reason'] ?? '',
                failures: Number(record['failures'] ?? 1),
              },
        );
      });
    },
    async setCooldown(id, record) {
      cache.forget('cooldown', id);
      await run(
        'SET_COOLDOWN',
        [key('cooldown', id), key('probe', id)],
        [record.until, record.reason, record.failures, options.clock.now(), COOLDOWN_GRACE_MS],
      );
    },
    async clearCooldown(id) {
      cache.forget('cooldown', id);
      await client.del(key('cooldown', id), key('probe', id));
    },
    async acquireProbe(id, ttlMs) {
      return (
        (await client.set(key('probe', id), instance, 'PX', Math.max(1, Math.round(ttlMs)), 'NX')) === 'OK'
      );
    },
    async releaseProbe(id) {
      await client.del(key('probe', id));
    },
    addInFlight: (id, delta) => leases.addInFlight(id, delta),
    getInFlight: (ids) => leases.getInFlight(ids),
    async recordLatency({ id, milliseconds, alpha }) {
      await run('RECORD_LATENCY', [key('latency')], [id, milliseconds, alpha]);
    },
    async getLatencies(ids) {
      return cache.read('latency', ids, async (missing) => {
        const values = await client.hmget(key('latency'), ...missing);
        return values.map((value) => (value === null ? undefined : Number(value)));
      });
    },
    async getSessionTier(sessionKey) {
      const value = await client.get(key('session', sessionKey));
      return value === null ? undefined : Number(value);
    },
    async raiseSessionTier({ key: sessionKey, rank, ttlMs }) {
      const evicted = await run(
        'RAISE_SESSION',
        [key('session', sessionKey), key('sessions')],
        [
          rank,
          Math.max(1, Math.round(ttlMs)),
          options.clock.now(),
          options.maxSessions ?? DEFAULT_MAX_SESSIONS,
        ],
      );
      if (Number(evicted) > 0) options.onEvict?.(Number(evicted));
    },
    async consumeWindow(request) {
      const raw = await run(
        'CONSUME_WINDOW',
        [key('window', request.key)],
        [
          request.amount,
          request.limit,
          request.windowMs,
          request.enforce ? 1 : 0,
          options.clock.now(),
          WINDOW_BUCKETS,
          request.bookAt === undefined ? '' : Math.floor(request.bookAt),
        ],
      );
      return toDecision(raw);
    },
    async consumePeriod(request) {
      const raw = await run(
        'CONSUME_PERIOD',
        [key('period', request.key, request.period)],
        [request.amount, request.limit, Math.max(1, Math.round(request.ttlMs)), request.enforce ? 1 : 0],
      );
      return toDecision(raw);
    },
    acquireSlot: (request) => leases.acquireSlot(request),
    releaseSlot: (slotKey) => leases.releaseSlot(slotKey),
    async close() {
      clearInterval(heartbeat);
      client.off('ready', publishAll);
      await client.zrem(alive, instance).catch(() => undefined);
      client.disconnect();
    },
  };
}

export type { CooldownRecord };
