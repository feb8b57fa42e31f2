import type { ApiKeyConfig, KeyLimitsConfig } from '../config/table-part-schemas.js';
import { RouterError } from '../shared/errors.js';
import type { StateStore } from '../state/state-store.js';

/** The key with the table's `key_limits` in place of the caps it does not set itself. */
export function withKeyLimits(key: ApiKeyConfig, limits: KeyLimitsConfig): ApiKeyConfig {
  return {
    ...key,
    max_streams: key.max_streams ?? limits.max_streams,
    max_concurrent_requests: key.max_concurrent_requests ?? limits.max_concurrent_requests,
  };
}

/**
 * Takes one of the key's concurrent-request slots in the shared store (so the cap holds across
 * instances with Redis), or refuses with 429 RATE_LIMITED naming the cap. Returns the release, to be
 * called once when the answer ends; a lost release frees the slot after `ttlMs` (the tier's total_ms).
 */
export async function acquireRequestSlot(
  store: StateStore,
  request: { key: ApiKeyConfig; ttlMs: number },
): Promise<() => Promise<void>> {
  const { key } = request;
  const limit = key.max_concurrent_requests;
  if (limit === undefined) return () => Promise.resolve();
  const slot = `key:${key.name}:requests`;
  if (!(await store.acquireSlot({ key: slot, limit, ttlMs: request.ttlMs })))
    throw new RouterError({
      code: 'RATE_LIMITED',
      message: `rate limit reached: ${limit} concurrent requests for key ${key.name}`,
      retryAfterSeconds: 1,
    });
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await store.releaseSlot(slot);
  };
}
