import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromFloat32Base64 } from '../src/shared/float32-base64.js';
import { createSimulatedBackend } from './create-simulated-backend.js';
import { toEmbeddingVector } from './embedding-vector.js';
import type { SimBackend } from './types.js';

interface EmbeddingsBody {
  object: string;
  model: string;
  data: { object: string; index: number; embedding: number[] | string }[];
  usage: { prompt_tokens: number; total_tokens: number; completion_tokens: number };
  error?: { message: string; param: string | null; code: number };
}

async function post(backend: SimBackend, body: unknown): Promise<{ status: number; body: EmbeddingsBody }> {
  const response = await fetch(`${backend.baseUrl}/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as EmbeddingsBody };
}

describe('the simulator serving embeddings like vLLM', () => {
  let bge: SimBackend;
  let qwen: SimBackend;
  let chat: SimBackend;
  beforeAll(async () => {
    bge = await createSimulatedBackend({
      id: 'bge',
      models: ['bge'],
      embedding: { dimensions: 8 },
      contextWindow: 16,
    });
    qwen = await createSimulatedBackend({
      id: 'qwen',
      models: ['qwen'],
      embedding: { dimensions: 8, matryoshka: true },
    });
    chat = await createSimulatedBackend({ id: 'chat', models: ['chat'] });
  });
  afterAll(async () => {
    await Promise.all([bge.close(), qwen.close(), chat.close()]);
  });

  it('answers deterministic unit vectors per input, in order, with usage', async () => {
    const first = await post(bge, { model: 'bge', input: ['alpha', 'beta'] });
    const again = await post(bge, { model: 'bge', input: ['beta'] });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ object: 'list', model: 'bge', usage: { completion_tokens: 0 } });
    const [alpha, beta] = first.body.data.map((item) => item.embedding as number[]);
    expect(again.body.data[0]?.embedding).toEqual(beta);
    expect(alpha).not.toEqual(beta);
    for (const vector of [alpha ?? [], beta ?? []]) {
      expect(vector).toHaveLength(8);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 12);
    }
    expect(first.body.usage.total_tokens).toBe(first.body.usage.prompt_tokens);
    expect(bge.stats().embeddingRequests).toBeGreaterThanOrEqual(2);
  });

  it('encodes base64 as little-endian float32 of the same vector', async () => {
    const floats = await post(bge, { model: 'bge', input: 'alpha' });
    const encoded = await post(bge, { model: 'bge', input: 'alpha', encoding_format: 'base64' });
    const vector = floats.body.data[0]?.embedding as number[];
    expect(fromFloat32Base64(encoded.body.data[0]?.embedding as string)).toEqual(
      vector.map((value) => Math.fround(value)),
    );
  });

  it('honours dimensions on a Matryoshka model (cut, then normalized) and refuses it elsewhere', async () => {
    const cut = await post(qwen, { model: 'qwen', input: 'alpha', dimensions: 3 });
    expect(cut.body.data[0]?.embedding).toEqual(
      toEmbeddingVector('qwen', 'alpha', { full: 8, dimensions: 3 }),
    );
    const refused = await post(bge, { model: 'bge', input: 'alpha', dimensions: 3 });
    expect(refused.status).toBe(400);
    expect(refused.body.error?.message).toContain('does not support matryoshka representation');
    expect((await post(qwen, { model: 'qwen', input: 'alpha', dimensions: 9 })).status).toBe(400);
  });

  it("answers vLLM's errors: unknown model 404, bad fields and too long inputs 400, no embedding model 404", async () => {
    expect((await post(bge, { model: 'other', input: 'x' })).status).toBe(404);
    expect((await post(bge, { model: 'bge', input: [] })).body.error?.param).toBe('input');
    expect((await post(bge, { model: 'bge', input: 'x', encoding_format: 'bytes' })).body.error?.param).toBe(
      'encoding_format',
    );
    const long = await post(bge, { model: 'bge', input: 'x'.repeat(100) });
    expect(long.status).toBe(400);
    expect(long.body.error?.message).toContain('maximum context length is 16 tokens');
    const tokens = await post(bge, { model: 'bge', input: [[1, 2], [3]] });
    expect(tokens.body.usage.prompt_tokens).toBe(3);
    const generative = await fetch(`${chat.baseUrl}/embeddings`, { method: 'POST', body: '{}' });
    expect(generative.status).toBe(404);
    await generative.arrayBuffer();
  });

  it('applies faults by header, like the generation endpoints', async () => {
    const response = await fetch(`${bge.baseUrl}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sim-fault': 'error_503' },
      body: JSON.stringify({ model: 'bge', input: 'x' }),
    });
    expect(response.status).toBe(503);
    await response.arrayBuffer();
  });
});
