import type { Clock } from '../shared/clock.js';

/**
 * Sessions a process keeps by default (100,000). With 43-character hashed keys an entry costs about
 * 200 bytes, so a full map is about 20 MB; at 10 new sessions a second a 30-minute window holds 18,000.
 */
export const DEFAULT_MAX_SESSIONS = 100_000;

export interface SessionLaddersOptions {
  clock: Clock;
  /** Sessions kept; past it the least recently raised goes first. @default DEFAULT_MAX_SESSIONS */
  maxSessions?: number;
  /** Told how many live sessions were dropped to stay under the cap (expired ones do not count). */
  onEvict?: (count: number) => void;
}

export interface SessionLadders {
  /** Highest rank the session used within its window, or undefined. */
  get(key: string): number | undefined;
  raise(session: { key: string; rank: number; ttlMs: number }): void;
  size(): number;
}

interface Ladder {
  rank: number;
  /** Epoch ms. */
  expiresAt: number;
}

/**
 * Session ladders in memory, capped. A Map keeps insertion order and a raise re-inserts its entry, so
 * the first entry is the least recently raised: with one window length it is also the first to expire.
 */
export function createSessionLadders(options: SessionLaddersOptions): SessionLadders {
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const ladders = new Map<string, Ladder>();
  const prune = (now: number): void => {
    let evicted = 0;
    for (const [key, ladder] of ladders) {
      const expired = ladder.expiresAt <= now;
      if (!expired && ladders.size <= maxSessions) break;
      ladders.delete(key);
      if (!expired) evicted += 1;
    }
    if (evicted > 0) options.onEvict?.(evicted);
  };
  return {
    get(key) {
      const ladder = ladders.get(key);
      if (ladder === undefined) return undefined;
      if (ladder.expiresAt > options.clock.now()) return ladder.rank;
      ladders.delete(key);
      return undefined;
    },
    raise({ key, rank, ttlMs }) {
      const now = options.clock.now();
      const ladder = ladders.get(key);
      const current = ladder !== undefined && ladder.expiresAt > now ? ladder.rank : -1;
      ladders.delete(key);
      ladders.set(key, { rank: Math.max(current, rank), expiresAt: now + ttlMs });
      prune(now);
    },
    size: () => ladders.size,
  };
}
