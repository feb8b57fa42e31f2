import type { Clock } from '../shared/clock.js';

export interface ReadCache {
  /** Values per id, from memory when younger than the cache time, else loaded for the missing ids. */
  read<T>(
    kind: string,
    ids: readonly string[],
    load: (missing: string[]) => Promise<(T | undefined)[]>,
  ): Promise<Map<string, T>>;
  forget(kind: string, id: string): void;
}

/** Hot reads of the Redis store (cooldowns, in-flight, latencies), keyed by deployment id. */
export function createReadCache(clock: Clock, cacheMs: number): ReadCache {
  const entries = new Map<string, { value: unknown; at: number }>();
  return {
    async read<T>(
      kind: string,
      ids: readonly string[],
      load: (missing: string[]) => Promise<(T | undefined)[]>,
    ): Promise<Map<string, T>> {
      const now = clock.now();
      const result = new Map<string, T>();
      const missing: string[] = [];
      for (const id of ids) {
        const entry = entries.get(`${kind}:${id}`);
        if (entry !== undefined && now - entry.at < cacheMs) {
          if (entry.value !== undefined) result.set(id, entry.value as T);
        } else missing.push(id);
      }
      if (missing.length === 0) return result;
      const loaded = await load(missing);
      missing.forEach((id, index) => {
        const value = loaded[index];
        entries.set(`${kind}:${id}`, { value, at: now });
        if (value !== undefined) result.set(id, value);
      });
      return result;
    },
    forget: (kind, id) => entries.delete(`${kind}:${id}`),
  };
}
