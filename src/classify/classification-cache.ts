import { createHash } from 'node:crypto';
import type { Clock } from '../shared/clock.js';
import type { ClassificationDecision } from './decision.js';
import type { ClassifyInput } from './classify-input.js';

export interface ClassificationCacheOptions {
  clock: Clock;
  /** Entries kept; the least recently used goes first. 0 disables the cache. */
  maxEntries: number;
  ttlMs: number;
  /** Told how many entries were dropped to stay under `maxEntries` (metrics). */
  onEvict?: (count: number) => void;
}

export interface ClassificationCache {
  get(key: string): ClassificationDecision | undefined;
  set(key: string, decision: ClassificationDecision): void;
  size(): number;
}

/**
 * Key of a request: a hash of the normalized classified text (case and whitespace folded) and the
 * request-shape facts that change the verdict (full length of a truncated text, turn count bucket, images, tools).
 */
export function toCacheKey(input: ClassifyInput): string {
  const normalized = input.lowerText.replace(/\s+/g, ' ').trim();
  const truncatedLength = input.textLength > input.text.length ? input.textLength : 0;
  const shape = `${truncatedLength}|${Math.min(input.turns, 8)}|${input.needsVision ? 1 : 0}|${input.hasTools ? 1 : 0}`;
  return createHash('sha1').update(shape).update('\u0000').update(normalized).digest('base64url');
}

/** A bounded LRU with a TTL; a Map keeps insertion order, so re-inserting marks an entry as recent. */
export function createClassificationCache(options: ClassificationCacheOptions): ClassificationCache {
  const entries = new Map<string, { decision: ClassificationDecision; expiresAt: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      entries.delete(key);
      if (entry.expiresAt <= options.clock.now()) return undefined;
      entries.set(key, entry);
      return entry.decision;
    },
    set(key, decision) {
      if (options.maxEntries === 0) return;
      entries.delete(key);
      entries.set(key, { decision, expiresAt: options.clock.now() + options.ttlMs });
      let evicted = 0;
      while (entries.size > options.maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
        evicted += 1;
      }
      if (evicted > 0) options.onEvict?.(evicted);
    },
    size: () => entries.size,
  };
}
