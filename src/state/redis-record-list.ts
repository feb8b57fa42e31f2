import type { Redis } from 'ioredis';
import type { RecordSink } from './record-sink.js';

export interface RedisRecordListOptions {
  url: string;
  key: string;
  /** The list is trimmed to its newest this many records after each append. */
  maxRecords: number;
  /** Time a command may take before it fails, ms. @default 1000 */
  commandTimeoutMs?: number;
}

/** A capped Redis list: RPUSH then LTRIM to the newest `maxRecords`, in one MULTI. */
export function createRedisRecordList(options: RedisRecordListOptions): RecordSink {
  // ioredis is imported here, not at the top: a server without a Redis sink never loads it (about 3 MiB)
  const connecting: Promise<Redis> = import('ioredis').then(({ Redis }) => {
    const redis = new Redis(options.url, {
      lazyConnect: false,
      maxRetriesPerRequest: 1,
      commandTimeout: options.commandTimeoutMs ?? 1000,
      enableOfflineQueue: true,
    });
    redis.on('error', () => undefined);
    return redis;
  });
  return {
    async append(lines) {
      if (lines.length === 0) return;
      const redis = await connecting;
      const results = await redis
        .multi()
        .rpush(options.key, ...lines)
        .ltrim(options.key, -options.maxRecords, -1)
        .exec();
      const failed = results?.find(([error]) => error !== null)?.[0];
      if (failed) throw failed;
    },
    async close() {
      const redis = await connecting;
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
