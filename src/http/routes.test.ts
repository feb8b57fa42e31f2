import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../endpoints/index.js';
import type { Gateway } from '../gateway/routed-endpoint.js';
import { createRouteIndex } from './route.js';
import { declareRoutes } from './routes.js';

const API_DOC = join(import.meta.dirname, '../../docs/api.md');

/** `METHOD path` of each row of docs/api.md's endpoint table; `/v1/models/{id}` is the prefix `/v1/models/`. */
function toDocumentedEndpoints(markdown: string): string[] {
  const section = markdown.split('\n## Endpoints\n')[1]?.split('\n## ')[0] ?? '';
  return [...section.matchAll(/^\| `(GET|POST) ([^`\s]+)` \|/gm)].map(
    ([, method, path]) => `${method} ${path?.replace(/\{[a-z_]+\}$/, '')}`,
  );
}

const unusedGateway: Gateway = {
  serve: () => Promise.reject(new Error('not called')),
  explain: () => Promise.reject(new Error('not called')),
  get parts(): Gateway['parts'] {
    throw new Error('not called');
  },
  authenticate: () => undefined,
};

const routes = declareRoutes({
  gateway: unusedGateway,
  isReady: () => Promise.resolve(true),
  metrics: () => Promise.resolve(''),
  metricsContentType: 'text/plain',
  state: () => Promise.resolve({}),
  activity: () => ({ requests: [] }) as never,
  history: () => ({}) as never,
  now: () => 0,
});

describe('ENDPOINTS, the one list of endpoints', () => {
  it('matches the endpoint table of docs/api.md: every endpoint documented, nothing else', () => {
    const documented = toDocumentedEndpoints(readFileSync(API_DOC, 'utf8'));
    const served = ENDPOINTS.map((endpoint) => `${endpoint.method} ${endpoint.path}`);
    // the dashboard's page is the one documented route outside ENDPOINTS (src/http/dashboard.ts)
    const dashboard = routes.filter(
      (route) => route.endpoint === 'dashboard' && route.path === '/dashboard/',
    );
    expect(dashboard).toHaveLength(1);
    expect(documented.toSorted()).toEqual([...served, 'GET /dashboard/'].toSorted());
  });

  it('routes every endpoint at its method and path with its access, and answers the other method with Allow', () => {
    const match = createRouteIndex(routes);
    for (const endpoint of ENDPOINTS) {
      const path = 'prefix' in endpoint ? `${endpoint.path}some-id` : endpoint.path;
      const found = match(endpoint.method, path);
      expect(found.route?.access, path).toBe(endpoint.access);
      expect(found.route?.readsBody, path).toBe(endpoint.body !== 'none');
      expect(found.endpoint, path).toBe(endpoint.name);
      const other = endpoint.method === 'GET' ? 'POST' : 'GET';
      const allow = endpoint.method === 'GET' ? ['GET', 'HEAD'] : ['POST'];
      expect(match(other, path).allow, path).toEqual(allow);
    }
  });

  it('declares each method and path once', () => {
    const keys = ENDPOINTS.map((endpoint) => `${endpoint.method} ${endpoint.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
