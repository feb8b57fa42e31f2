import type { SharedStateInfo } from './build-service.js';
import type { Env } from './config/env.js';
import type { LoadedTable } from './config/load-routing-table.js';
import { createMetrics, type Metrics } from './observe/metrics.js';
import { systemClock } from './shared/clock.js';
import type { Logger } from './shared/logger.js';
import { createMemoryStateStore } from './state/create-memory-state-store.js';
import { createResilientStore } from './state/create-resilient-store.js';
import type { StateStore } from './state/state-store.js';

/** The state store: Redis behind the resilient wrapper when AUTOTIER_REDIS_URL is set, else memory. */
export async function createSharedState(input: {
  env: Env;
  table: LoadedTable;
  logger: Logger;
}): Promise<{ store?: StateStore; sharedState?: SharedStateInfo; metrics: Metrics }> {
  const metrics = createMetrics();
  const url = input.env.AUTOTIER_REDIS_URL;
  if (url === undefined) return { metrics };
  // ioredis loads only when Redis is configured
  const { createRedisStateStore } = await import('./state/redis-state-store.js');
  const redis = createRedisStateStore({
    url,
    clock: systemClock,
    commandTimeoutMs: input.env.AUTOTIER_REDIS_TIMEOUT_MS,
    onEvict: (count) => metrics.cacheEvicted('redis_sessions', count),
  });
  if (!(await redis.ready(2000)))
    input.logger.error('Redis is not answering yet; serving on local state until it does', {
      url: redactUrl(url),
    });
  const store = createResilientStore({
    primary: redis,
    local: createMemoryStateStore({
      clock: systemClock,
      onEvict: (count) => metrics.cacheEvicted('sessions', count),
    }),
    logger: input.logger,
    rateLimitsWhenDown: input.table.table.state.rate_limits_when_down,
    onError: (operation) => metrics.stateError(operation),
    connected: () => redis.connected(),
  });
  return {
    store,
    sharedState: { kind: 'redis', degraded: () => store.degraded(), errors: () => store.errorCount() },
    metrics,
  };
}

/** A Redis URL without its password, for logs. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable url)';
  }
}
