import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/policy/api-keys.js';
import { simpleTable, startStack, type Stack } from '../helpers/start-stack.js';

/**
 * Property-based fuzzing of POST /v1/embeddings: whatever a client sends, autotier answers a
 * 200 in OpenAI's shape or an OpenAI-shaped 4xx (a 400 names its field); never a 5xx, since the
 * simulated deployments are healthy.
 */
const KEY = 'sk-embed-fuzz';
const BGE = 'BAAI/bge-m3';

const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 100 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 100 }) },
  { weight: 1, arbitrary: fc.constantFrom('\ud800'.repeat(500), '我们'.repeat(2_000), 'z'.repeat(20_000)) },
);
const tokenId = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 300_000 }) },
  { weight: 1, arbitrary: fc.constantFrom(-1, 1.5, 2 ** 53, Number.MAX_VALUE) },
);
const anyJson = fc.jsonValue({ maxDepth: 3 });
const input = fc.oneof(
  text,
  fc.array(text, { maxLength: 5 }),
  fc.array(tokenId, { maxLength: 20 }),
  fc.array(fc.array(tokenId, { maxLength: 10 }), { maxLength: 4 }),
  fc.array(fc.oneof(text, tokenId, fc.array(tokenId, { maxLength: 3 })), { maxLength: 4 }),
  anyJson,
);
const body = fc.record(
  {
    model: fc.oneof(
      fc.constantFrom('auto', BGE, 'sim-model', 'text-embedding-3-small'),
      fc.string({ maxLength: 300 }),
    ),
    input,
    encoding_format: fc.oneof(fc.constantFrom('float', 'base64', 'bytes', null), anyJson),
    dimensions: fc.oneof(fc.integer({ min: -2, max: 100_000 }), fc.double(), anyJson),
    user: fc.oneof(fc.string({ maxLength: 2000 }), anyJson),
    stream: fc.oneof(fc.boolean(), anyJson),
    truncate_prompt_tokens: anyJson,
  },
  { requiredKeys: [] },
);

interface Answer {
  error?: { message: string; type: string; code: string; param: string | null };
  object?: string;
  data?: { object: string; index: number; embedding: unknown }[];
}

describe('fuzzing POST /v1/embeddings', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      backends: [
        { id: 'chat', models: ['sim-model'] },
        { id: 'bge', models: [BGE], embedding: { dimensions: 8 }, contextWindow: 8192 },
      ],
      table: (urls) => {
        const base = simpleTable({ urls: { chat: urls['chat'] ?? '' }, group: ['chat'] });
        return {
          ...base,
          deployments: [
            ...(base.deployments ?? []),
            { id: 'bge', kind: 'embedding', model: BGE, base_url: urls['bge'] ?? '', context_window: 8192 },
          ],
          embeddings: {
            group: ['bge'],
            timeouts: { connect_ms: 2000, ttft_ms: 5000, idle_ms: 5000, total_ms: 10_000 },
          },
          api_keys: [{ name: 'fuzz', sha256: hashKey(KEY) }],
        };
      },
    });
  });
  afterAll(() => stack.close());

  it('answers every body with a 200 in shape or an OpenAI-shaped 4xx naming the field', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (sample) => {
        const response = await fetch(`${stack.url}/v1/embeddings`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
          body: JSON.stringify(sample),
        });
        const answer = (await response.json()) as Answer;
        expect(response.status, JSON.stringify(answer).slice(0, 300)).toBeLessThan(500);
        if (response.status === 200) {
          expect(answer.object).toBe('list');
          expect(
            answer.data?.every((item, index) => item.index === index && item.object === 'embedding'),
          ).toBe(true);
          return;
        }
        expect(answer.error?.type).toEqual(expect.any(String));
        if (response.status === 400 && answer.error?.code === 'invalid_request')
          expect(answer.error.param).toEqual(expect.any(String));
      }),
      { numRuns: 150, seed: 20 },
    );
  }, 120_000);
});
