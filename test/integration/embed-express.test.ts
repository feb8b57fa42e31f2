import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express, { type Express } from 'express';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { hashKey } from '../../src/policy/api-keys.js';
import { createRecordingLogger } from '../../src/shared/logger.js';
import { createSimulatedFleet, type SimFleet } from '../../sim/index.js';
import { createAutotier, type Autotier } from '../../src/index.js';
import { simpleTable } from '../helpers/start-stack.js';

/**
 * autotier embedded in an operator's express app (docs/embedding.md): the operator's middleware runs
 * first and sees every request, `app.use('/llm', gateway.router)` serves the gateway below /llm, the
 * official openai client talks to it there, and `gateway.close()` drains without touching the app.
 */

const KEY = 'sk-embedded';
const MESSAGES = [{ role: 'user' as const, content: 'hello there' }];
/** 20 tokens a second: a 30-token stream is still running when the drain begins. */
const TOKENS_PER_SECOND = 20;

interface ErrorBody {
  error: { code: string; message: string; type: string; param: string | null; request_id: string };
}

interface OperatorApp {
  url: string;
  /** Requests the operator's middleware saw, by original URL. */
  seen: string[];
  close(): Promise<void>;
}

/** The operator's app: a counting middleware that marks every answer, its own route, then the gateway. */
async function startOperatorApp(mount: (app: Express) => void): Promise<OperatorApp> {
  const app = express();
  const seen: string[] = [];
  app.use((request, response, next) => {
    seen.push(request.originalUrl);
    response.setHeader('x-operator', 'yes');
    next();
  });
  app.get('/hello', (_request, response) => {
    response.json({ hello: 'operator' });
  });
  mount(app);
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function writeTable(folder: string, urls: Record<string, string>): string {
  const table = {
    ...simpleTable({
      urls,
      group: ['a'],
      timeouts: { connect_ms: 2000, ttft_ms: 10_000, idle_ms: 5000, total_ms: 30_000 },
    }),
    api_keys: [{ name: 'operator', sha256: hashKey(KEY) }],
  };
  const path = join(folder, 'table.yaml');
  writeFileSync(path, stringify(table));
  return path;
}

async function startGateway(folder: string, urls: Record<string, string>): Promise<Autotier> {
  return createAutotier({
    table: writeTable(folder, urls),
    env: { AUTOTIER_COUNT_THREADS: '0' },
    logger: createRecordingLogger(),
  });
}

const errorOf = async (response: Response) => ((await response.json()) as ErrorBody).error;

describe('autotier mounted in an operator express app at /llm', () => {
  let folder: string;
  let fleet: SimFleet;
  let gateway: Autotier;
  let operator: OperatorApp;
  let client: OpenAI;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'autotier-embed-'));
    fleet = await createSimulatedFleet({ backends: [{ id: 'a', models: ['sim-model'] }] });
    gateway = await startGateway(folder, { a: fleet.byId('a').baseUrl });
    operator = await startOperatorApp((app) => app.use('/llm', gateway.router));
    client = new OpenAI({ baseURL: `${operator.url}/llm/v1`, apiKey: KEY, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await operator?.close();
    await fleet?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('answers a chat completion through the openai client, with the operator header on the answer', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'auto', messages: MESSAGES, max_tokens: 8 })
      .withResponse();
    expect(data.choices[0]?.message.content?.length).toBeGreaterThan(0);
    expect(response.headers.get('x-operator')).toBe('yes');
    expect(response.headers.get('x-autotier-deployment')).toBe('a');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('streams a chat completion through the openai client to its finish reason', async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'auto', messages: MESSAGES, max_tokens: 8, stream: true })
      .withResponse();
    expect(response.headers.get('x-operator')).toBe('yes');
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    let content = '';
    let finishReason: string | null | undefined;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? '';
      finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
    }
    expect(content.length).toBeGreaterThan(0);
    expect(finishReason).toBeTruthy();
  });

  it('lists the models through the openai client', async () => {
    const models = await client.models.list();
    expect(models.data.map((model) => model.id)).toContain('auto');
  });

  it('keeps the key check under the mount: a missing key is the OpenAI-shaped 401', async () => {
    const anonymous = new OpenAI({ baseURL: `${operator.url}/llm/v1`, apiKey: 'sk-unknown', maxRetries: 0 });
    await expect(anonymous.models.list()).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it("answers an unknown path under /llm with the gateway's 404, naming the path below the mount", async () => {
    const response = await fetch(`${operator.url}/llm/v1/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(404);
    expect(response.headers.get('x-operator')).toBe('yes');
    const error = await errorOf(response);
    expect(error).toMatchObject({ code: 'not_found', type: 'invalid_request_error' });
    expect(error.message).toContain('POST "/v1/audio/speech"');
    const root = await fetch(`${operator.url}/llm`);
    expect(root.status).toBe(404);
    expect((await errorOf(root)).message).toContain('GET "/"');
  });

  it('answers 405 with Allow under the mount, and redirects the dashboard below the mount', async () => {
    const wrongMethod = await fetch(`${operator.url}/llm/v1/chat/completions`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect((await errorOf(wrongMethod)).code).toBe('method_not_allowed');
    const bare = await fetch(`${operator.url}/llm/dashboard`, { redirect: 'manual' });
    expect(bare.status).toBe(302);
    expect(bare.headers.get('location')).toBe('/llm/dashboard/');
  });

  it("keeps the operator's own route, and its middleware saw every request before the gateway", async () => {
    const before = operator.seen.length;
    const hello = await fetch(`${operator.url}/hello`);
    expect(await hello.json()).toEqual({ hello: 'operator' });
    expect(hello.headers.get('x-operator')).toBe('yes');
    const health = await fetch(`${operator.url}/llm/health`);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect(operator.seen.slice(before)).toEqual(['/hello', '/llm/health']);
  });
});

describe('an operator body parser mounted before the gateway', () => {
  let folder: string;
  let fleet: SimFleet;
  let gateway: Autotier;
  let operator: OperatorApp;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'autotier-embed-parser-'));
    fleet = await createSimulatedFleet({ backends: [{ id: 'a', models: ['sim-model'] }] });
    gateway = await startGateway(folder, { a: fleet.byId('a').baseUrl });
    operator = await startOperatorApp((app) => {
      app.use(express.json());
      app.use('/llm', gateway.router);
    });
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await operator?.close();
    await fleet?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('gets a 400 naming the body and the fix, at once, for a body express.json() already read', async () => {
    const response = await fetch(`${operator.url}/llm/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ model: 'auto', messages: MESSAGES }),
    });
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error).toMatchObject({ code: 'invalid_request', param: 'body', type: 'invalid_request_error' });
    expect(error.message).toContain('express.json()');
    expect(error.message).toContain('mount the router before any body parser');
  });

  it('serves the routes without a body as usual', async () => {
    const models = await fetch(`${operator.url}/llm/v1/models`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(models.status).toBe(200);
  });
});

describe('closing an embedded gateway', () => {
  let folder: string;
  let fleet: SimFleet;
  let gateway: Autotier;
  let operator: OperatorApp;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'autotier-embed-close-'));
    fleet = await createSimulatedFleet({
      backends: [{ id: 'a', models: ['sim-model'], latency: { tokensPerSecond: TOKENS_PER_SECOND } }],
    });
    gateway = await startGateway(folder, { a: fleet.byId('a').baseUrl });
    operator = await startOperatorApp((app) => app.use('/llm', gateway.router));
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await operator?.close();
    await fleet?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('drains: a stream under way ends whole, new requests get 503 shutting_down with Connection: close, the app keeps serving', async () => {
    const client = new OpenAI({ baseURL: `${operator.url}/llm/v1`, apiKey: KEY, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'tier:SIMPLE',
      messages: MESSAGES,
      max_tokens: 30,
      stream: true,
    });
    const chunks = stream[Symbol.asyncIterator]();
    const first = await chunks.next();
    if (first.done === true) throw new Error('the stream ended before its first chunk');

    let closed = false;
    const closing = gateway.close(30_000).then(() => (closed = true));
    const refused = await fetch(`${operator.url}/llm/v1/models`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('connection')).toBe('close');
    expect(refused.headers.get('x-operator')).toBe('yes');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await errorOf(refused)).code).toBe('shutting_down');

    let content = first.value.choices[0]?.delta.content ?? '';
    let finishReason: string | null | undefined;
    for (let next = await chunks.next(); next.done !== true; next = await chunks.next()) {
      content += next.value.choices[0]?.delta.content ?? '';
      finishReason = next.value.choices[0]?.finish_reason ?? finishReason;
    }
    expect(finishReason).toBe('length');
    expect(content.length).toBeGreaterThan(0);
    await closing;
    expect(closed).toBe(true);
    const hello = await fetch(`${operator.url}/hello`);
    expect(hello.status).toBe(200);
  }, 30_000);
});
