import { createHash } from 'node:crypto';
import type { Clock } from '../shared/clock.js';
import type { ClassificationDecision } from './decision.js';
import type { ClassifyInput } from './classify-input.js';

export interface ClassificationCacheOptions {
  clock: Clock;
  /**
   * Entries kept over all scopes; 0 disables the cache. When full, the scope holding the most entries
   * gives up its least recently used one, so a scope that floods the cache only evicts its own.
   */
  maxEntries: number;
  ttlMs: number;
  /** Told how many entries were dropped to stay under `maxEntries` (metrics). */
  onEvict?: (count: number) => void;
}

/** Where an entry lives: its scope (whose requests may read it) and the digest of what was classified. */
export interface CacheKey {
  /** The API key's SHA-256 (never the key); '' for every request of an open-mode table. */
  scope: string;
  digest: string;
}

export interface ClassificationCache {
  get(key: CacheKey): ClassificationDecision | undefined;
  set(key: CacheKey, decision: ClassificationDecision): void;
  /** Entries over all scopes. */
  size(): number;
}

/**
 * The fields of `ClassifyInput` the digest covers: every one some stage reads (heuristics, the learned
 * model, the LLM stage's facts), so two requests share an entry only when every stage would see the
 * same input. `lowerText` is `text` lowercased, so `text` covers it. A new field fails to compile here
 * until it is listed.
 */
const KEYED_FIELDS = {
  text: true,
  lowerText: false,
  textLength: true,
  systemText: true,
  systemLength: true,
  turns: true,
  conversationLength: true,
  recentCode: true,
  imageCount: true,
  needsVision: true,
  hasTools: true,
} satisfies Record<keyof ClassifyInput, boolean>;

const FIELDS = (Object.keys(KEYED_FIELDS) as (keyof ClassifyInput)[]).filter((field) => KEYED_FIELDS[field]);

/**
 * Key of a request: a SHA-256 of every field the classifier reads, exactly (case and spacing included:
 * the LLM stage reads the text as sent), in the request's scope. Bounded: `ClassifyInput` holds windows
 * of the texts (about 900 characters of the last user message, 1500 of the system prompts) and numbers.
 */
export function toCacheKey(input: ClassifyInput, scope: string): CacheKey {
  const digest = createHash('sha256')
    .update(JSON.stringify(FIELDS.map((field) => input[field])))
    .digest('base64url');
  return { scope, digest };
}

interface Entry {
  decision: ClassificationDecision;
  expiresAt: number;
}

/**
 * A bounded LRU per scope with a TTL, sharing one cap fairly: a Map keeps insertion order, so
 * re-inserting marks an entry as recent. Scopes without entries are dropped, so there are never more
 * scopes than entries.
 */
export function createClassificationCache(options: ClassificationCacheOptions): ClassificationCache {
  const scopes = new Map<string, Map<string, Entry>>();
  let size = 0;
  const remove = (scope: string, entries: Map<string, Entry>, digest: string): void => {
    if (!entries.delete(digest)) return;
    size -= 1;
    if (entries.size === 0) scopes.delete(scope);
  };
  /** The scope holding the most entries; `preferred` on a tie. Linear in the scopes (at most the API keys). */
  const largest = (preferred: string): string => {
    let victim = preferred;
    let most = scopes.get(preferred)?.size ?? 0;
    for (const [scope, entries] of scopes)
      if (entries.size > most) {
        victim = scope;
        most = entries.size;
      }
    return victim;
  };
  const evictOne = (preferred: string): boolean => {
    const scope = largest(preferred);
    const entries = scopes.get(scope);
    const oldest = entries?.keys().next().value;
    if (entries === undefined || oldest === undefined) return false;
    remove(scope, entries, oldest);
    return true;
  };
  return {
    get({ scope, digest }) {
      const entries = scopes.get(scope);
      const entry = entries?.get(digest);
      if (entries === undefined || entry === undefined) return undefined;
      if (entry.expiresAt <= options.clock.now()) {
        remove(scope, entries, digest);
        return undefined;
      }
      entries.delete(digest);
      entries.set(digest, entry);
      return entry.decision;
    },
    set({ scope, digest }, decision) {
      if (options.maxEntries === 0) return;
      let entries = scopes.get(scope);
      if (entries === undefined) scopes.set(scope, (entries = new Map<string, Entry>()));
      if (entries.delete(digest)) size -= 1;
      entries.set(digest, { decision, expiresAt: options.clock.now() + options.ttlMs });
      size += 1;
      let evicted = 0;
      while (size > options.maxEntries && evictOne(scope)) evicted += 1;
      if (evicted > 0) options.onEvict?.(evicted);
    },
    size: () => size,
  };
}
