import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/endpoints/index.js';
import { hashKey } from '../../src/policy/api-keys.js';
import { HELLO, postChat, simpleTable, startStack, type Stack } from '../helpers/start-stack.js';
import { sample } from '../helpers/prometheus.js';

interface ErrorBody {
  error: { code: string; message: string; type: string; param: string | null; request_id: string };
}

const errorOf = async (response: Response) => ((await response.json()) as ErrorBody).error;
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

/** The logged `request` lines of the request the client sent with `x-request-id: clientRequestId`. */
function requestLines(stack: Stack, clientRequestId: string) {
  return stack.logger.lines.filter(
    (line) => line.message === 'request' && line.fields['client_request_id'] === clientRequestId,
  );
}

describe('the HTTP edge in open mode', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      backends: [
        { id: 'a', models: ['sim-model'] },
        { id: 'down', models: ['sim-model'], fault: { name: 'error_503' } },
      ],
      table: (urls) => {
        const table = simpleTable({ urls, group: ['a'] });
        return {
          ...table,
          tiers: { ...table.tiers, EXPERT: simpleTable({ urls, group: ['down'] }).tiers.EXPERT },
        };
      },
    });
  });
  afterAll(() => stack.close());

  it('answers 404 not_found naming the method and path for an unknown path (POST /v1/audio/speech) and GET /', async () => {
    const unknown = await fetch(`${stack.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'edge-unknown' },
      body: JSON.stringify({ model: 'auto', input: 'hi' }),
    });
    expect(unknown.status).toBe(404);
    const error = await errorOf(unknown);
    expect(error).toMatchObject({
      code: 'not_found',
      type: 'invalid_request_error',
      request_id: unknown.headers.get('x-request-id'),
    });
    expect(unknown.headers.get('x-client-request-id')).toBe('edge-unknown');
    expect(error.message).toContain('POST "/v1/audio/speech"');
    const root = await fetch(`${stack.url}/`);
    expect(root.status).toBe(404);
    expect((await errorOf(root)).message).toContain('GET "/"');
  });

  it('answers 405 with Allow for a known path and another method', async () => {
    const get = await fetch(`${stack.url}/v1/chat/completions`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await errorOf(get)).code).toBe('method_not_allowed');
    const remove = await fetch(`${stack.url}/health`, { method: 'DELETE' });
    expect(remove.status).toBe(405);
    expect(remove.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers HEAD like GET without a body, and ignores a trailing slash', async () => {
    const head = await fetch(`${stack.url}/health`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect((await fetch(`${stack.url}/v1/models/`)).status).toBe(200);
  });

  it('logs each rejection once with its request id, method, path, status and code', async () => {
    await fetch(`${stack.url}/v1/audio/speech?x=1`, {
      method: 'POST',
      headers: { 'x-request-id': 'edge-log-404' },
    });
    await fetch(`${stack.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=latin1', 'x-request-id': 'edge-log-415' },
      body: '{}',
    });
    await postChat(
      stack.url,
      { model: 'nonexistent', messages: HELLO },
      { 'x-request-id': 'edge-log-model' },
    );
    await fetch(`${stack.url}/v1/route`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'edge-log-route' },
      body: '{"model":',
    });
    const expected = {
      'edge-log-404': {
        method: 'POST',
        path: '/v1/audio/speech',
        status: 404,
        error_code: 'NOT_FOUND',
        endpoint: 'unknown',
      },
      'edge-log-415': {
        method: 'POST',
        path: '/v1/chat/completions',
        status: 415,
        error_code: 'UNSUPPORTED_MEDIA_TYPE',
      },
      'edge-log-model': {
        method: 'POST',
        path: '/v1/chat/completions',
        status: 404,
        error_code: 'MODEL_NOT_FOUND',
      },
      'edge-log-route': { method: 'POST', path: '/v1/route', status: 400, error_code: 'INVALID_REQUEST' },
    };
    for (const [requestId, fields] of Object.entries(expected)) {
      const lines = requestLines(stack, requestId);
      expect(lines, requestId).toHaveLength(1);
      expect(lines[0]?.level).toBe('info');
      expect(lines[0]?.fields).toMatchObject({
        ...fields,
        outcome: 'rejected',
        client_request_id: requestId,
      });
      expect(String(lines[0]?.fields['error'])).not.toBe('');
    }
  });

  it('logs a routed request that fails upstream once, as routed and at error level', async () => {
    const response = await postChat(
      stack.url,
      { model: 'tier:EXPERT', messages: HELLO },
      { 'x-request-id': 'edge-503' },
    );
    expect(response.status).toBe(503);
    const lines = requestLines(stack, 'edge-503');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'error',
      fields: { outcome: 'routed', tier: 'EXPERT', error_code: 'ALL_DEPLOYMENTS_FAILED' },
    });
    expect(stack.logger.lines.filter((line) => line.message === 'request failed')).toEqual([]);
  });

  it('counts rejections by code and endpoint in /metrics, never by the client path', async () => {
    await fetch(`${stack.url}/wp-login.php-secret-probe`);
    await fetch(`${stack.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    const text = await (await fetch(`${stack.url}/metrics`)).text();
    expect(
      sample(text, 'autotier_rejected_requests_total', { code: 'NOT_FOUND', endpoint: 'unknown' }),
    ).toBeGreaterThanOrEqual(3);
    expect(
      sample(text, 'autotier_rejected_requests_total', { code: 'UNSUPPORTED_MEDIA_TYPE', endpoint: 'chat' }),
    ).toBe(2);
    expect(
      sample(text, 'autotier_rejected_requests_total', { code: 'MODEL_NOT_FOUND', endpoint: 'chat' }),
    ).toBe(1);
    expect(
      sample(text, 'autotier_rejected_requests_total', { code: 'METHOD_NOT_ALLOWED', endpoint: 'chat' }),
    ).toBe(1);
    expect(sample(text, 'autotier_requests_total', { tier: 'none', status: '415', endpoint: 'chat' })).toBe(
      2,
    );
    expect(text).not.toContain('wp-login');
  });

  it('keeps rejected requests apart from routed ones in the dashboard data', async () => {
    const summary = (await (await fetch(`${stack.url}/dashboard/api/summary`)).json()) as {
      activity: {
        requests: { clientRequestId?: string; outcome: string; tier?: string }[];
        byTier: Record<string, number>;
        byRejectedCode: Record<string, number>;
      };
    };
    const { activity } = summary;
    expect(activity.requests.find((request) => request.clientRequestId === 'edge-log-404')?.outcome).toBe(
      'rejected',
    );
    expect(activity.requests.find((request) => request.clientRequestId === 'edge-503')?.outcome).toBe(
      'routed',
    );
    expect(activity.byTier['none']).toBeUndefined();
    expect(activity.byTier['EXPERT']).toBe(1);
    expect(activity.byRejectedCode['NOT_FOUND']).toBeGreaterThanOrEqual(3);
    expect(activity.byRejectedCode['UNSUPPORTED_MEDIA_TYPE']).toBe(2);
  });

  it('stops reading a body when the client disconnects, logs it once and keeps serving', async () => {
    const socket = connect(Number(new URL(stack.url).port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    // `expect: 100-continue`: node:http answers "100 Continue" once it has the request, so the body
    // is cut after the server started reading it.
    socket.write(
      'POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
        'x-request-id: edge-cut\r\ncontent-length: 1000000\r\nexpect: 100-continue\r\n\r\n',
    );
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.write('{"model":"auto","messages":[');
    socket.destroy();
    await expect.poll(() => requestLines(stack, 'edge-cut').length).toBe(1);
    expect(requestLines(stack, 'edge-cut')[0]?.fields).toMatchObject({
      status: 499,
      error_code: 'CLIENT_CLOSED',
    });
    expect((await fetch(`${stack.url}/health`)).status).toBe(200);
  });
});

describe('the HTTP edge with API keys', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      backends: [{ id: 'a', models: ['sim-model'] }],
      table: (urls) => ({
        ...simpleTable({ urls, group: ['a'] }),
        api_keys: [
          { name: 'app', sha256: hashKey('sk-app') },
          { name: 'ops', sha256: hashKey('sk-ops'), admin: true },
        ],
      }),
    });
  });
  afterAll(() => stack.close());

  it('answers 401 before reading the body: no key and a bad body is 401 on every endpoint that reads a body', async () => {
    const badBodies: { headers: Record<string, string>; body: string }[] = [
      { headers: { 'content-type': 'application/json' }, body: '{"model":' },
      { headers: { 'content-type': 'application/json' }, body: '{"model": 42}' },
      { headers: { 'content-type': 'application/json; charset=latin1' }, body: '{}' },
      { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: 'not gzip' },
      { headers: { 'content-type': 'application/json' }, body: `{"a":${'['.repeat(100_000)}}` },
    ];
    for (const { path } of ENDPOINTS.filter((endpoint) => endpoint.body !== 'none'))
      for (const { headers, body } of badBodies) {
        const response = await fetch(`${stack.url}${path}`, { method: 'POST', headers, body });
        expect(response.status, `${path} ${body.slice(0, 20)}`).toBe(401);
        expect((await errorOf(response)).code).toBe('unauthorized');
      }
  });

  it('validates the body once the key is good', async () => {
    const response = await fetch(`${stack.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer('sk-app') },
      body: '{"model":',
    });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).param).toBe('body');
  });

  it('needs a key for GET /v1/models, as OpenAI does', async () => {
    expect((await fetch(`${stack.url}/v1/models`)).status).toBe(401);
    expect((await fetch(`${stack.url}/v1/models`, { headers: bearer('sk-app') })).status).toBe(200);
    expect((await fetch(`${stack.url}/health`)).status).toBe(200);
  });

  it('logs a refused admin endpoint with the key name, and a missing key without one', async () => {
    const forbidden = await fetch(`${stack.url}/metrics`, {
      headers: { ...bearer('sk-app'), 'x-request-id': 'edge-403' },
    });
    expect(forbidden.status).toBe(403);
    expect(requestLines(stack, 'edge-403')[0]?.fields).toMatchObject({
      outcome: 'rejected',
      key: 'app',
      endpoint: 'metrics',
      method: 'GET',
      path: '/metrics',
      status: 403,
      error_code: 'FORBIDDEN',
    });
    await fetch(`${stack.url}/autotier/state`, { headers: { 'x-request-id': 'edge-401' } });
    expect(requestLines(stack, 'edge-401')[0]?.fields).toMatchObject({ status: 401, key: undefined });
    const text = await (await fetch(`${stack.url}/metrics`, { headers: bearer('sk-ops') })).text();
    expect(sample(text, 'autotier_rejected_requests_total', { code: 'FORBIDDEN', endpoint: 'metrics' })).toBe(
      1,
    );
    expect(sample(text, 'autotier_rejected_requests_total', { code: 'UNAUTHORIZED', endpoint: 'chat' })).toBe(
      5,
    );
  });
});
