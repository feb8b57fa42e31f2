import type { EndpointModule } from './endpoint.js';

/** Prometheus metrics, in the registry's own content type. */
export const metrics = {
  method: 'GET',
  path: '/metrics',
  name: 'metrics',
  access: 'admin',
  body: 'none',
  upstream: 'none',
  handle: async (_input, services) => ({
    kind: 'raw',
    status: 200,
    headers: { 'content-type': services.metricsContentType },
    body: await services.metrics(),
  }),
} as const satisfies EndpointModule;
