import { describe, expect, it } from 'vitest';
import { createRouteIndex, type Route } from './route.js';

const route = (method: Route['method'], path: string): Route => ({
  method,
  path,
  endpoint: 'health',
  access: 'open',
  readsBody: false,
  handle: () => ({ kind: 'json', status: 200, headers: {}, body: {} }),
});

describe('the route index', () => {
  const match = createRouteIndex([
    route('GET', '/health'),
    route('POST', '/v1/route'),
    route('GET', '/dashboard'),
    route('GET', '/dashboard/'),
  ]);

  it('finds a route by method and exact path, HEAD by its GET route', () => {
    expect(match('GET', '/health').route?.path).toBe('/health');
    expect(match('HEAD', '/health').route?.method).toBe('GET');
    expect(match('POST', '/v1/route').route?.path).toBe('/v1/route');
  });

  it('ignores one trailing slash unless that path is declared itself', () => {
    expect(match('GET', '/health/').route?.path).toBe('/health');
    expect(match('GET', '/dashboard/').route?.path).toBe('/dashboard/');
    expect(match('GET', '/health//').route).toBeUndefined();
  });

  it('lists the methods a known path takes, and none for an unknown path', () => {
    expect(match('POST', '/health')).toEqual({
      route: undefined,
      allow: ['GET', 'HEAD'],
      endpoint: 'health',
    });
    expect(match('GET', '/v1/route').allow).toEqual(['POST']);
    expect(match('POST', '/v1/embeddings')).toEqual({
      route: undefined,
      allow: undefined,
      endpoint: 'unknown',
    });
    expect(match('GET', '/').endpoint).toBe('unknown');
  });

  it('takes every path below a prefix route, slashes included, after the exact paths', () => {
    const prefixed = createRouteIndex([
      route('GET', '/v1/models'),
      { ...route('GET', '/v1/models/'), prefix: true, endpoint: 'models' },
    ]);
    expect(prefixed('GET', '/v1/models').route?.prefix).toBeUndefined();
    expect(prefixed('GET', '/v1/models/').route?.prefix).toBeUndefined();
    expect(prefixed('GET', '/v1/models/Qwen/Qwen3-8B').route?.prefix).toBe(true);
    expect(prefixed('GET', '/v1/models/Qwen%2FQwen3-8B').route?.prefix).toBe(true);
    expect(prefixed('POST', '/v1/models/auto')).toEqual({
      route: undefined,
      allow: ['GET', 'HEAD'],
      endpoint: 'models',
    });
    expect(prefixed('GET', '/v1/modelsx').route).toBeUndefined();
  });

  it('refuses a method and path declared twice', () => {
    expect(() => createRouteIndex([route('GET', '/health'), route('GET', '/health')])).toThrow(
      'route GET /health is declared twice',
    );
  });
});
