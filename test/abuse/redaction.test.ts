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
 * An upstream the operator does not control answers with text full of credentials (its own config,
 * a proxy's, an echo of headers) and internal addresses. None of the credentials may reach a client,
 * admin or not, or the service log; internal names reach admin keys only.
 */
const SECRETS = {
  redisPassword: 'Redis-Pa55word-7731',
  amqpPassword: 'amqp-pw-55120',
  postgresPassword: 'pg-pass-77810',
  clientSecret: 'cs9f8e7d6c5b4a3x21',
  github: 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8',
  githubOauth: 'gho_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2',
  githubServer: 'ghs_16C7e42F292c6912E7710c838347Ae178B4a',
  githubFineGrained: 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN',
  huggingFace: 'hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567',
  awsAccessKey: 'AKIAIOSFODNN7EXAMPLE',
  awsSessionKey: 'ASIAY34FZKBOKMUTVV7A',
  awsSecretKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  anthropic: 'sk-ant-api03-Xy7Qm2Lp9Rt4Vw6Zb1Nc3Kd5Hf8Jg0Ps',
  openAiProject: 'sk-proj-4kS9mP2qR7tV1wX3yZ5aB8cD0eF6gH',
  slackBot: 'xoxb-2400013250-5829003451-AbCdEfGhIjKlMnOp',
  slackApp: 'xapp-1-A0123456789-1234567890123-abcdef0123',
  jwt: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzdmMtYmlsbGluZyJ9.c2lnbmF0dXJlLWJ5dGVz',
  google: 'AIzaSyD4x9Q2mV7pK1wE6tR3yU8iO0aS5dF2gHj',
  bearer: 'tok_live_9a8b7c6d5e4f',
  yamlPassword: 'hunter2-yaml-443',
  queryToken: 'qs-token-12345abc',
  jsonApiKey: 'k-abc123def456',
  passwd: 'p4sswd-9912',
  refreshToken: 'rt-5c2e9a1b77',
  pemBody: 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7',
};

const INTERNAL = [
  'cache.internal',
  'db.svc.cluster.local',
  '10.0.3.7',
  'fd00::7',
  'vllm-a.gpu.local',
  'gpu-node-7',
];

/** The upstream's 400 text: credentials in every syntax an operator meets, and internal names. */
function hostileText(): string {
  const s = SECRETS;
  return [
    `config error: cache redis://:${s.redisPassword}@cache.internal:6379/0 unreachable`,
    `broker amqp://worker:${s.amqpPassword}@10.0.3.7/vhost, db postgresql://app:${s.postgresPassword}@db.svc.cluster.local/app`,
    `oauth: client_id=autotier&client_secret=${s.clientSecret}&grant_type=client_credentials`,
    `tokens ${s.github} ${s.githubOauth} ${s.githubServer} ${s.githubFineGrained} ${s.huggingFace}`,
    `[default]\naws_access_key_id = ${s.awsAccessKey}\naws_secret_access_key = ${s.awsSecretKey}\nsession ${s.awsSessionKey}`,
    `keys ${s.anthropic}, ${s.openAiProject}; slack ${s.slackBot} ${s.slackApp}`,
    `Authorization: Bearer ${s.bearer}`,
    `upstream_jwt=${s.jwt} google=${s.google}`,
    `yaml:\n  password: ${s.yamlPassword}\n  passwd: "${s.passwd}"`,
    `GET /models?access_token=${s.queryToken}&page=2 via [fd00::7]:8000 and vllm-a.gpu.local`,
    `{"api_key": "${s.jsonApiKey}", "refresh_token": "${s.refreshToken}"}`,
    `-----BEGIN PRIVATE KEY-----\n${s.pemBody}\n-----END PRIVATE KEY-----`,
    'retry on gpu-node-7 when it is back',
  ].join('\n');
}

function startHostileUpstream(): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    if (request.url?.startsWith('/midstream') === true) {
      // one content token, then vLLM's in-band error event: the failure comes after the commit point
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = {
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'midstream-model',
        choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }],
      };
      response.write(`data: ${JSON.stringify(chunk)}\n\n`);
      // the table's own host first: an in-band message reaches the client cut short
      const message = `gpu-node-7 dropped the stream; ${hostileText()}`;
      response.end(`data: ${JSON.stringify({ error: { message, code: 500 } })}\n\n`);
      return;
    }
    const status = request.url?.startsWith('/fail') === true ? 500 : 400;
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: hostileText(), type: 'BadRequestError' } }));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

/** The planted secrets found in `text`. */
function leaked(text: string): string[] {
  return Object.values(SECRETS).filter((secret) => text.includes(secret));
}

describe('redaction of credentials and internal names an upstream sends', () => {
  let upstream: { server: Server; url: string };
  let service: Service;
  let url: string;
  const logger = createRecordingLogger();
  beforeAll(async () => {
    upstream = await startHostileUpstream();
    const deployment = (id: string, baseUrl: string) => ({
      id,
      model: `${id}-model`,
      base_url: baseUrl,
      context_window: 32768,
    });
    const tier = { group: ['hostile'], timeouts: FAST_TIMEOUTS };
    const failing = { group: ['failing'], timeouts: FAST_TIMEOUTS };
    service = buildService({
      table: toTable({
        deployments: [
          deployment('hostile', `${upstream.url}/v1`),
          deployment('failing', `${upstream.url}/fail/v1`),
          deployment('midstream', `${upstream.url}/midstream/v1`),
          // never called: its host is an internal name the upstream's text mentions
          deployment('spare', 'http://gpu-node-7:8000/v1'),
        ],
        tiers: {
          SIMPLE: tier,
          MODERATE: { ...tier, group: ['midstream'] },
          COMPLEX: failing,
          EXPERT: { ...tier, group: ['spare'] },
        },
        balancer: { retry: { max_attempts: 1 } },
        api_keys: [
          { name: 'user', sha256: hashKey('sk-user') },
          { name: 'ops', sha256: hashKey('sk-ops'), admin: true },
        ],
      }),
      logger,
      tokenCounter: sharedTokenCounter(),
      createClassifier: unreachableClassifier,
    });
    ({ url } = await service.listen(0));
  });
  afterAll(async () => {
    await service.close();
    await new Promise((resolve) => upstream.server.close(resolve));
  });

  it("keeps every credential of an upstream's 400 out of a non-admin key's answer and the log", async () => {
    const response = await postChat(
      url,
      { model: 'hostile-model', messages: HELLO },
      { authorization: 'Bearer sk-user' },
    );
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(text).toContain('upstream_bad_request');
    expect(leaked(text)).toEqual([]);
    expect(INTERNAL.filter((name) => text.includes(name))).toEqual([]);
    expect(text).toContain('config error');
    expect(leaked(JSON.stringify(logger.lines))).toEqual([]);
  });

  it('shows internal names to an admin key, never the credentials', async () => {
    const response = await postChat(
      url,
      { model: 'hostile-model', messages: HELLO },
      { authorization: 'Bearer sk-ops' },
    );
    const text = await response.text();
    expect(leaked(text)).toEqual([]);
    expect(text).toContain('cache.internal');
  });

  it('keeps credentials of a 500 (retried, then all deployments failed) out of the answer, log and dashboard', async () => {
    const response = await postChat(
      url,
      { model: 'failing-model', messages: HELLO },
      { authorization: 'Bearer sk-user' },
    );
    const text = await response.text();
    expect(response.status).toBeGreaterThanOrEqual(500);
    expect(leaked(text)).toEqual([]);
    expect(INTERNAL.filter((name) => text.includes(name))).toEqual([]);
    expect(leaked(JSON.stringify(logger.lines))).toEqual([]);
    const state = await (
      await fetch(`${url}/autotier/state`, { headers: { authorization: 'Bearer sk-ops' } })
    ).text();
    expect(leaked(state)).toEqual([]);
  });

  it('masks the credentials of a streamed answer that fails before its first token', async () => {
    const response = await postChat(
      url,
      { model: 'hostile-model', messages: HELLO, stream: true },
      { authorization: 'Bearer sk-user' },
    );
    const text = await response.text();
    expect(leaked(text)).toEqual([]);
    expect(leaked(JSON.stringify(logger.lines))).toEqual([]);
  });

  it("masks credentials and the table's hosts in an in-band error after the first token", async () => {
    const response = await postChat(
      url,
      { model: 'midstream-model', messages: HELLO, stream: true },
      { authorization: 'Bearer sk-user' },
    );
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).toContain('Hello');
    expect(text).toContain('"error"');
    expect(text).not.toContain('[DONE]');
    expect(leaked(text)).toEqual([]);
    expect(INTERNAL.filter((name) => text.includes(name))).toEqual([]);
    expect(leaked(JSON.stringify(logger.lines))).toEqual([]);
  });
});
