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

  it('counts background health probes per deployment and outcome', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    metrics.healthProbe('gpu-1', 'unhealthy');
    metrics.healthProbe('gpu-1', 'unhealthy');
    metrics.healthProbe('gpu-1', 'healthy');
    const text = await metrics.registry.metrics();
    expect(text).toContain('autotier_health_probes_total{deployment="gpu-1",outcome="unhealthy"} 2');
    expect(text).toContain('autotier_health_probes_total{deployment="gpu-1",outcome="healthy"} 1');
  });
});
