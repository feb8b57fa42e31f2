import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/policy/api-keys.js';
import { toEmbeddingVector } from '../../sim/embedding-vector.js';
import { simpleTable, startStack, type Stack } from '../helpers/start-stack.js';

const BGE = 'BAAI/bge-m3';
const QWEN = 'Qwen/Qwen3-Embedding-0.6B';
const BGE_DIMENSIONS = 16;
const QWEN_DIMENSIONS = 32;
const EMBEDDING_TIMEOUTS = { connect_ms: 1000, ttft_ms: 3000, idle_ms: 3000, total_ms: 10_000 };

const client = (stack: Stack, apiKey = 'sk-open'): OpenAI =>
  new OpenAI({ baseURL: `${stack.url}/v1`, apiKey, maxRetries: 0 });

const postEmbeddings = (stack: Stack, body: unknown, apiKey = 'sk-open'): Promise<Response> =>
  fetch(`${stack.url}/v1/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify(body),
  });

interface ErrorBody {
  error: { code: string; param: string | null; message: string; type: string };
}

/** The vector the simulator makes for one input of a model (sim/embedding-vector.ts). */
const expected = (model: string, input: string, full: number, dimensions = full): number[] =>
  toEmbeddingVector(model, input, { full, dimensions });

describe('POST /v1/embeddings through the HTTP API', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      backends: [
        { id: 'chat', models: ['sim-model'] },
        { id: 'bge-1', models: [BGE], embedding: { dimensions: BGE_DIMENSIONS } },
        { id: 'bge-2', models: [BGE], embedding: { dimensions: BGE_DIMENSIONS } },
        {
          id: 'qwen-embed',
          models: [QWEN],
          embedding: { dimensions: QWEN_DIMENSIONS, matryoshka: true },
          contextWindow: 64,
        },
      ],
      table: (urls) => {
        const base = simpleTable({ urls: { chat: urls['chat'] ?? '' }, group: ['chat'] });
        const embedding = (id: string, model: string) => ({
          id,
          kind: 'embedding' as const,
          model,
          base_url: urls[id] ?? '',
          context_window: 8192,
        });
        return {
          ...base,
          deployments: [
            ...(base.deployments ?? []),
            embedding('bge-1', BGE),
            embedding('bge-2', BGE),
            embedding('qwen-embed', QWEN),
          ],
          embeddings: {
            group: ['bge-1'],
            fallback: ['bge-2', 'qwen-embed'],
            timeouts: EMBEDDING_TIMEOUTS,
            retry_in_place: { transient_retries: 0 },
          },
          api_keys: [
            { name: 'open', sha256: hashKey('sk-open') },
            { name: 'ops', sha256: hashKey('sk-ops'), admin: true },
            { name: 'slow', sha256: hashKey('sk-slow'), rpm: 2 },
            { name: 'bge-only', sha256: hashKey('sk-bge-only'), models: [BGE] },
            { name: 'pinned', sha256: hashKey('sk-pinned'), allow_overrides: false },
            { name: 'small-budget', sha256: hashKey('sk-small-budget'), tpm: 50 },
          ],
        };
      },
    });
  });
  afterAll(() => stack.close());

  it('answers the openai SDK in float, with the served model name, input order and usage', async () => {
    const inputs = ['the first document', 'the second one', 'a third'];
    const answer = await client(stack).embeddings.create({
      model: 'auto',
      input: inputs,
      encoding_format: 'float',
    });
    expect(answer.object).toBe('list');
    expect(answer.model).toBe(BGE);
    expect(answer.data.map((item) => [item.object, item.index])).toEqual([
      ['embedding', 0],
      ['embedding', 1],
      ['embedding', 2],
    ]);
    inputs.forEach((input, index) => {
      expect(answer.data[index]?.embedding).toEqual(expected(BGE, input, BGE_DIMENSIONS));
    });
    expect(answer.usage.prompt_tokens).toBeGreaterThan(0);
    expect(answer.usage.total_tokens).toBe(answer.usage.prompt_tokens);
  });

  it('answers base64 (the SDK default) that decodes to the same vectors as float32', async () => {
    const inputs = ['retrieval augmented generation', 'vector search'];
    const decoded = await client(stack).embeddings.create({ model: BGE, input: inputs });
    const floats = await client(stack).embeddings.create({
      model: BGE,
      input: inputs,
      encoding_format: 'float',
    });
    expect(decoded.data).toHaveLength(2);
    decoded.data.forEach((item, index) => {
      const reference = floats.data[index]?.embedding ?? [];
      expect(item.embedding).toHaveLength(BGE_DIMENSIONS);
      expect(item.embedding).toEqual(reference.map((value) => Math.fround(value)));
    });
    const raw = (await (
      await postEmbeddings(stack, { model: 'auto', input: 'one', encoding_format: 'base64' })
    ).json()) as { data: { embedding: unknown }[] };
    expect(typeof raw.data[0]?.embedding).toBe('string');
  });

  it('takes token ids and arrays of token ids', async () => {
    const single = await client(stack).embeddings.create({
      model: 'auto',
      input: [1, 2, 3],
      encoding_format: 'float',
    });
    expect(single.data).toHaveLength(1);
    expect(single.usage.prompt_tokens).toBe(3);
    const several = await client(stack).embeddings.create({
      model: 'auto',
      input: [[1, 2], [3], [4, 5, 6]],
      encoding_format: 'float',
    });
    expect(several.data).toHaveLength(3);
    expect(several.usage.prompt_tokens).toBe(6);
  });

  it('routes a named model to the deployments serving it, and honours dimensions where the model does', async () => {
    const response = await postEmbeddings(stack, {
      model: QWEN,
      input: 'hello',
      dimensions: 8,
      encoding_format: 'float',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autotier-deployment')).toBe('qwen-embed');
    expect(response.headers.get('x-autotier-tier')).toBe('EMBEDDINGS');
    const body = (await response.json()) as { model: string; data: { embedding: number[] }[] };
    expect(body.model).toBe(QWEN);
    expect(body.data[0]?.embedding).toEqual(expected(QWEN, 'hello', QWEN_DIMENSIONS, 8));
    const refused = await postEmbeddings(stack, { model: BGE, input: 'hello', dimensions: 8 });
    expect(refused.status).toBe(400);
    const error = ((await refused.json()) as ErrorBody).error;
    expect(error.code).toBe('upstream_bad_request');
    expect(error.message).toContain('does not support matryoshka');
  });

  it('answers 404 model_not_found for an unknown model, and for a chat model asked for embeddings', async () => {
    for (const model of ['text-embedding-3-small', 'sim-model']) {
      const failure = await client(stack)
        .embeddings.create({ model, input: 'x' })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(failure, model).toBeInstanceOf(OpenAI.NotFoundError);
      expect((failure as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
      expect((failure as InstanceType<typeof OpenAI.NotFoundError>).param).toBe('model');
    }
    const chat = await fetch(`${stack.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-open' },
      body: JSON.stringify({ model: BGE, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(404);
    expect(((await chat.json()) as ErrorBody).error.code).toBe('model_not_found');
  });

  it('answers 400 naming the field for a malformed request, before any upstream call', async () => {
    const before = stack.sim('bge-1').stats().embeddingRequests;
    const cases: [unknown, string, string][] = [
      [{ model: 'auto' }, 'input', 'must be a string'],
      [{ model: 'auto', input: ['a', 1] }, 'input', 'must be a string'],
      [{ model: 'auto', input: [] }, 'input', 'must not be an empty array'],
      [{ model: 'auto', input: [[1], []] }, 'input', 'must not be an empty array'],
      [{ model: 'auto', input: [-1] }, 'input', 'must be a string'],
      [{ model: 'auto', input: [[1], ['a']] }, 'input', 'must be a string'],
      [{ model: 'auto', input: [1.5] }, 'input', 'must be a string'],
      [{ model: 'auto', input: 'x', encoding_format: 'bytes' }, 'encoding_format', 'float'],
      [{ model: 'auto', input: 'x', dimensions: 0 }, 'dimensions', ''],
      [{ model: 'auto', input: 'x', dimensions: 1.5 }, 'dimensions', ''],
      [{ model: 'auto', input: 'x', stream: true }, 'stream', 'not streamed'],
      [{ model: 'auto', input: 'x', user: 7 }, 'user', ''],
      [{ model: 42, input: 'x' }, 'model', ''],
      [{ model: 'auto', input: Array.from({ length: 2049 }, () => 'a') }, 'input', 'at most 2048 inputs'],
      [
        { model: 'auto', input: ['x'.repeat(4_000_001), 'y'.repeat(4_000_000)] },
        'input',
        'at most 8000000 characters',
      ],
      [
        { model: 'auto', input: Array.from({ length: 2000 }, () => Array.from({ length: 1001 }, () => 1)) },
        'input',
        'token ids',
      ],
    ];
    for (const [body, param, words] of cases) {
      const response = await postEmbeddings(stack, body);
      const { error } = (await response.json()) as ErrorBody;
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(error.param).toBe(param);
      expect(error.code).toBe('invalid_request');
      expect(error.message).toContain(words);
    }
    expect(stack.sim('bge-1').stats().embeddingRequests).toBe(before);
  });

  it('applies the key: 401 without one, its model list, its override policy, RPM and TPM', async () => {
    const anonymous = await fetch(`${stack.url}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'auto', input: 'x' }),
    });
    expect(anonymous.status).toBe(401);
    const listed = await postEmbeddings(stack, { model: QWEN, input: 'x' }, 'sk-bge-only');
    expect(listed.status).toBe(403);
    expect(((await listed.json()) as ErrorBody).error.code).toBe('forbidden');
    expect((await postEmbeddings(stack, { model: BGE, input: 'x' }, 'sk-bge-only')).status).toBe(200);
    const pinned = await postEmbeddings(stack, { model: BGE, input: 'x' }, 'sk-pinned');
    expect(pinned.status).toBe(403);
    expect(((await pinned.json()) as ErrorBody).error.code).toBe('override_not_allowed');
    expect((await postEmbeddings(stack, { model: 'auto', input: 'x' }, 'sk-pinned')).status).toBe(200);
    const statuses = [];
    for (let index = 0; index < 3; index += 1)
      statuses.push((await postEmbeddings(stack, { model: 'auto', input: 'x' }, 'sk-slow')).status);
    expect(statuses).toEqual([200, 200, 429]);
    const forty = { model: 'auto', input: Array.from({ length: 40 }, (_, index) => index) };
    expect((await postEmbeddings(stack, forty, 'sk-small-budget')).status).toBe(200);
    const over = await postEmbeddings(stack, forty, 'sk-small-budget');
    expect(over.status).toBe(429);
    expect(((await over.json()) as ErrorBody).error.code).toBe('tpm_exceeded');
  });

  it('counts embeddings requests in the metrics with their endpoint and tier', async () => {
    const text = await (
      await fetch(`${stack.url}/metrics`, { headers: { authorization: 'Bearer sk-ops' } })
    ).text();
    const line = text
      .split('\n')
      .find((row) => row.startsWith('autotier_requests_total{') && row.includes('endpoint="embeddings"'));
    expect(line).toBeDefined();
    expect(line).toContain('tier="EMBEDDINGS"');
    expect(line).toContain('status="200"');
  });

  it('fails over to the next embedding deployment when the first answers 500', async () => {
    stack.sim('bge-1').setFault({ name: 'error_503' });
    stack.sim('bge-1').resetStats();
    stack.sim('bge-2').resetStats();
    try {
      const response = await postEmbeddings(stack, {
        model: 'auto',
        input: ['a', 'b'],
        encoding_format: 'float',
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-autotier-deployment')).toBe('bge-2');
      expect(response.headers.get('x-autotier-fallbacks')).toBe('1');
      const body = (await response.json()) as { data: { embedding: number[] }[] };
      expect(body.data[1]?.embedding).toEqual(expected(BGE, 'b', BGE_DIMENSIONS));
      expect(stack.sim('bge-1').stats().embeddingRequests).toBe(1);
      expect(stack.sim('bge-2').stats().embeddingRequests).toBe(1);
      // bge-1 is cooling down now: the next request goes straight to bge-2
      const next = await postEmbeddings(stack, { model: 'auto', input: 'c' });
      expect(next.headers.get('x-autotier-deployment')).toBe('bge-2');
      expect(stack.sim('bge-1').stats().embeddingRequests).toBe(1);
    } finally {
      stack.sim('bge-1').setFault(null);
    }
  });

  it('answers GET /v1/models/{id} for auto, aliases, chat and embedding models, slashes raw or encoded', async () => {
    const listed = await client(stack).models.list();
    const ids = listed.data.map((model) => model.id);
    expect(ids).toEqual(expect.arrayContaining(['auto', 'tier:SIMPLE', 'sim-model', BGE, QWEN]));
    for (const id of ['auto', 'tier:EXPERT', 'sim-model', BGE, QWEN]) {
      const model = await client(stack).models.retrieve(id);
      expect(model).toEqual({
        id,
        object: 'model',
        created: expect.any(Number) as number,
        owned_by: 'autotier',
      });
      expect(listed.data.find((entry) => entry.id === id)?.created).toBe(model.created);
    }
    for (const path of ['BAAI/bge-m3', 'BAAI%2Fbge-m3', 'BAAI%2fbge-m3']) {
      const response = await fetch(`${stack.url}/v1/models/${path}`, {
        headers: { authorization: 'Bearer sk-open' },
      });
      expect(response.status, path).toBe(200);
      expect(((await response.json()) as { id: string }).id).toBe(BGE);
    }
    const missing = await client(stack)
      .models.retrieve('Qwen/Qwen3-Nope')
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect((missing as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
    const malformed = await fetch(`${stack.url}/v1/models/%E0%A4%A`, {
      headers: { authorization: 'Bearer sk-open' },
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as ErrorBody).error.param).toBe('model');
    const anonymous = await fetch(`${stack.url}/v1/models/auto`);
    expect(anonymous.status).toBe(401);
  });
});

describe('embeddings when a deployment breaks its answer', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      backends: [
        { id: 'chat', models: ['sim-model'] },
        { id: 'bge-1', models: [BGE], embedding: { dimensions: BGE_DIMENSIONS } },
        { id: 'bge-2', models: [BGE], embedding: { dimensions: BGE_DIMENSIONS } },
      ],
      table: (urls) => {
        const base = simpleTable({ urls: { chat: urls['chat'] ?? '' }, group: ['chat'], cooldownMs: 0 });
        const embedding = (id: string) => ({
          id,
          kind: 'embedding' as const,
          model: BGE,
          base_url: urls[id] ?? '',
          context_window: 8192,
        });
        return {
          ...base,
          deployments: [...(base.deployments ?? []), embedding('bge-1'), embedding('bge-2')],
          embeddings: {
            group: ['bge-1'],
            fallback: ['bge-2'],
            timeouts: EMBEDDING_TIMEOUTS,
            retry_in_place: { transient_retries: 0 },
          },
        };
      },
    });
  });
  afterAll(() => stack.close());

  it('fails over when the first deployment cuts its answer or sends malformed JSON', async () => {
    for (const fault of ['cut_mid_stream', 'malformed_chunk'] as const) {
      stack.sim('bge-1').setFault({ name: fault });
      try {
        const answer = await client(stack).embeddings.create({ model: 'auto', input: ['p', 'q'] });
        expect(answer.data[1]?.embedding, fault).toEqual(
          expected(BGE, 'q', BGE_DIMENSIONS).map((value) => Math.fround(value)),
        );
        expect(stack.sim('bge-1').stats().byFault[fault]).toBe(1);
      } finally {
        stack.sim('bge-1').setFault(null);
      }
    }
  });

  it('answers 503 naming each failure when every deployment breaks its answer', async () => {
    stack.sim('bge-1').setFault({ name: 'malformed_chunk' });
    stack.sim('bge-2').setFault({ name: 'malformed_chunk' });
    try {
      const response = await postEmbeddings(stack, { model: 'auto', input: 'x' });
      const { error } = (await response.json()) as ErrorBody;
      expect(response.status).toBe(503);
      expect(error.code).toBe('all_deployments_failed');
      expect(error.message).toContain('bge-2: UPSTREAM_MALFORMED');
    } finally {
      stack.sim('bge-1').setFault(null);
      stack.sim('bge-2').setFault(null);
    }
  });
});

describe('embeddings with a routing table that has no embeddings group', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      backends: [{ id: 'chat', models: ['sim-model'] }],
      table: (urls) => simpleTable({ urls, group: ['chat'] }),
    });
  });
  afterAll(() => stack.close());

  it('answers 404 model_not_found naming model and the missing group', async () => {
    const response = await postEmbeddings(stack, { model: 'auto', input: 'x' });
    expect(response.status).toBe(404);
    const { error } = (await response.json()) as ErrorBody;
    expect(error.code).toBe('model_not_found');
    expect(error.param).toBe('model');
    expect(error.message).toContain('no embeddings group');
  });
});
