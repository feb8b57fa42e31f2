import { describe, expect, it } from 'vitest';
import { apiKeySchema, keyLimitsSchema } from '../config/table-part-schemas.js';
import { createManualTime } from '../../test/helpers/manual-time.js';
import { createMemoryStateStore } from '../state/create-memory-state-store.js';
import { acquireRequestSlot, withKeyLimits } from './key-concurrency.js';

const key = apiKeySchema.parse({ name: 'team', sha256: 'a'.repeat(64) });
const defaults = keyLimitsSchema.parse({});

describe('withKeyLimits', () => {
  it('gives a key without caps the table defaults: 32 requests, 16 streams', () => {
    expect(withKeyLimits(key, defaults)).toMatchObject({ max_concurrent_requests: 32, max_streams: 16 });
  });

  it("keeps a key's own caps", () => {
    const own = { ...key, max_concurrent_requests: 3, max_streams: 1 };
    expect(withKeyLimits(own, defaults)).toMatchObject({ max_concurrent_requests: 3, max_streams: 1 });
  });
});

describe('acquireRequestSlot', () => {
  it('refuses the request past the cap with 429 naming it, and takes it again after a release', async () => {
    const store = createMemoryStateStore({ clock: createManualTime().clock });
    const capped = { ...key, max_concurrent_requests: 2 };
    const first = await acquireRequestSlot(store, { key: capped, ttlMs: 60_000 });
    await acquireRequestSlot(store, { key: capped, ttlMs: 60_000 });
    await expect(acquireRequestSlot(store, { key: capped, ttlMs: 60_000 })).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      message: 'rate limit reached: 2 concurrent requests for key team',
    });
    await first();
    await first(); // a second release frees nothing more
    await acquireRequestSlot(store, { key: capped, ttlMs: 60_000 });
    await expect(acquireRequestSlot(store, { key: capped, ttlMs: 60_000 })).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
  });
});
