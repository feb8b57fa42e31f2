import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisRecordList } from '../../src/state/redis-record-list.js';

const REDIS_URL = process.env['AUTOTIER_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const reader = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
const key = `test-learn-${randomUUID()}`;

afterAll(async () => {
  await reader.del(key);
  await reader.quit();
});

describe('the Redis record list of classifier.learn', () => {
  it('appends in order and keeps only the newest max_records', async () => {
    const list = createRedisRecordList({ url: REDIS_URL, key, maxRecords: 3 });
    await list.append(['1', '2']);
    await list.append(['3', '4', '5']);
    await list.append([]);
    await list.close();
    expect(await reader.lrange(key, 0, -1)).toEqual(['3', '4', '5']);
  });
});
