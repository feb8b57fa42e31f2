import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.js';

describe('metrics', () => {
  it('counts cache evictions per cache', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    metrics.cacheEvicted('sessions', 3);
    metrics.cacheEvicted('sessions', 2);
    metrics.cacheEvicted('classification', 1);
    const text = await metrics.registry.metrics();
    expect(text).toContain('autotier_cache_evictions_total{cache="sessions"} 5');
    expect(text).toContain('autotier_cache_evictions_total{cache="classification"} 1');
  });
});
