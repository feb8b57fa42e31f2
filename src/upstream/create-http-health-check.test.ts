import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deployment } from '../../test/helpers/balance-fixtures.js';
import { createSimulatedBackend, type SimBackend } from '../../sim/index.js';
import { createHttpHealthCheck } from './create-http-health-check.js';
import type { HealthCheck, ProbeKind } from './health-check.js';

const KEY = 'sk-probe-secret-0123456789';
let backend: SimBackend;
let healthCheck: HealthCheck;
const chatHeaders: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  backend = await createSimulatedBackend({
    id: 'probed',
    models: ['probe-model'],
    responder: ({ headers }) => {
      chatHeaders.push(headers);
      return undefined;
    },
  });
  healthCheck = createHttpHealthCheck({ readSecret: (name) => (name === 'PROBE_KEY' ? KEY : undefined) });
});
afterAll(async () => {
  await healthCheck.close();
  await backend.close();
});
beforeEach(() => {
  backend.setFault(null);
  chatHeaders.length = 0;
});

const target = (overrides: Record<string, unknown> = {}) =>
  deployment('probed', {
    model: 'probe-model',
    base_url: backend.baseUrl,
    api_key_env: 'PROBE_KEY',
    ...overrides,
  });
const probe = (kind: ProbeKind, timeoutMs = 2000, overrides: Record<string, unknown> = {}) =>
  healthCheck.check({ deployment: target(overrides), kind, timeoutMs });

describe('createHttpHealthCheck against the simulator', () => {
  it('finds a healthy server healthy with each kind: /health, /v1/models, a one-token chat', async () => {
    for (const kind of ['health', 'models', 'chat'] as const)
      expect(await probe(kind), kind).toEqual({ healthy: true, detail: 'status 200' });
    expect(backend.stats().chatRequests).toBe(1);
  });

  it("sends the chat probe for the served model name with the deployment's API key", async () => {
    await probe('chat');
    expect(chatHeaders).toHaveLength(1);
    expect(chatHeaders[0]?.['authorization']).toBe(`Bearer ${KEY}`);
  });

  it('finds a server with a dead engine (503) unhealthy with each kind', async () => {
    backend.setFault({ name: 'error_503' });
    for (const kind of ['health', 'models', 'chat'] as const)
      expect(await probe(kind), kind).toEqual({ healthy: false, detail: 'status 503' });
  });

  it('counts a silent server unhealthy at the timeout, and a reset connection by its code', async () => {
    backend.setFault({ name: 'no_response' });
    const started = performance.now();
    expect(await probe('health', 300)).toEqual({ healthy: false, detail: 'timeout' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
    backend.setFault({ name: 'reset_before_headers' });
    expect(await probe('models')).toMatchObject({ healthy: false });
  });

  it('counts only a 2xx healthy: a served name the server does not know answers 404', async () => {
    expect(await probe('chat', 2000, { model: 'not-served' })).toEqual({
      healthy: false,
      detail: 'status 404',
    });
  });

  it('counts a refused connection unhealthy without naming the host', async () => {
    const closed = await createSimulatedBackend({ id: 'gone', models: ['m'] });
    const baseUrl = closed.baseUrl;
    await closed.close();
    const result = await healthCheck.check({
      deployment: target({ base_url: baseUrl }),
      kind: 'health',
      timeoutMs: 2000,
    });
    expect(result).toEqual({ healthy: false, detail: 'ECONNREFUSED' });
  });
});
