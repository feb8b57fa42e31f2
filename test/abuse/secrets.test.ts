import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildService, type Service } from '../../src/build-service.js';
import { createRecordingLogger } from '../../src/shared/logger.js';
import { hashKey } from '../../src/policy/api-keys.js';
import {
  FAST_TIMEOUTS,
  HELLO,
  postChat,
  sharedTokenCounter,
  toTable,
  unreachableClassifier,
} from '../helpers/start-stack.js';

/**
 * Secrets: a backend that echoes the request's Authorization header (and names internal
 * hosts) in its errors must not hand the upstream key to a client or a log.
 */
const UPSTREAM_KEY = 'sk-upstream-secret-4f7a9c21e8';

/** A misbehaving OpenAI-compatible server: 400 echoing the headers, 500 naming an internal host. */
function startEchoingUpstream(): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const echo = request.url?.startsWith('/echo') === true;
    response.writeHead(echo ? 400 : 500, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        error: {
          message: echo
            ? `bad request; your headers were ${JSON.stringify(request.headers)}`
            : 'proxy error: connect to vllm-7.gpu.internal:8000 (10.20.30.40:8000) failed',
        },
      }),
    );
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

describe('secrets never leave the process', () => {
  let upstream: { server: Server; url: string };
  let service: Service;
  let url: string;
  const logger = createRecordingLogger();
  beforeAll(async () => {
    upstream = await startEchoingUpstream();
    const deployment = (id: string, path: string) => ({
      id,
      model: `${id}-model`,
      base_url: `${upstream.url}/${path}/v1`,
      context_window: 32768,
      api_key_env: 'ECHO_KEY',
    });
    const tier = { group: ['echo'], timeouts: FAST_TIMEOUTS };
    service = buildService({
      table: toTable({
        deployments: [deployment('echo', 'echo'), deployment('broken', 'broken')],
        tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
        api_keys: [
          { name: 'user', sha256: hashKey('sk-user') },
          { name: 'ops', sha256: hashKey('sk-ops'), admin: true },
        ],
      }),
      logger,
      tokenCounter: sharedTokenCounter(),
      createClassifier: unreachableClassifier,
      readSecret: (name) => (name === 'ECHO_KEY' ? UPSTREAM_KEY : undefined),
    });
    ({ url } = await service.listen(0));
  });
  afterAll(async () => {
    await service.close();
    await new Promise((resolve) => upstream.server.close(resolve));
  });

  it("masks an upstream's echo of the Authorization header in the client's error and in the logs", async () => {
    const response = await postChat(
      url,
      { model: 'echo-model', messages: HELLO },
      { authorization: 'Bearer sk-user' },
    );
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(text).toContain('upstream_bad_request');
    expect(text).not.toContain(UPSTREAM_KEY);
    expect(JSON.stringify(logger.lines)).not.toContain(UPSTREAM_KEY);
    // the client's own key is not in the logs either
    expect(JSON.stringify(logger.lines)).not.toContain('sk-user');
  });

  it('shows internal hosts in errors to admin keys only', async () => {
    const asUser = await (
      await postChat(url, { model: 'broken-model', messages: HELLO }, { authorization: 'Bearer sk-user' })
    ).text();
    expect(asUser).not.toMatch(/gpu\.internal|10\.20\.30\.40|127\.0\.0\.1/);
    expect(asUser).toContain('<internal>');
    const state = await (
      await fetch(`${url}/autotier/state`, { headers: { authorization: 'Bearer sk-ops' } })
    ).text();
    expect(state).not.toContain(UPSTREAM_KEY);
  });
});
