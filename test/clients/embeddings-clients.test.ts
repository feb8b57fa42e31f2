import { OpenAIEmbeddings } from '@langchain/openai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toEmbeddingVector } from '../../sim/embedding-vector.js';
import { startDemo, type DemoStack } from '../helpers/start-demo.js';

const MODEL = 'BAAI/bge-m3';
/** The demo's embedding model (sim/demo-fleet.ts, routing-tables/default.yaml). */
const DIMENSIONS = 1024;

const expected = (input: string): number[] =>
  toEmbeddingVector(MODEL, input, { full: DIMENSIONS, dimensions: DIMENSIONS }).map((value) =>
    Math.fround(value),
  );

describe('embeddings and model lookup against the demo, with real client libraries', () => {
  let demo: DemoStack;
  let client: OpenAI;

  beforeAll(async () => {
    demo = await startDemo();
    client = new OpenAI({ baseURL: `${demo.url}/v1`, apiKey: 'any key works in open mode', maxRetries: 0 });
  }, 60_000);

  afterAll(() => demo.close());

  it("answers LangChain's OpenAIEmbeddings: embedDocuments and embedQuery", async () => {
    const embeddings = new OpenAIEmbeddings({
      model: 'auto',
      apiKey: 'any key works in open mode',
      configuration: { baseURL: `${demo.url}/v1` },
      maxRetries: 0,
    });
    const documents = ['Paris is the capital of France.', 'The Seine flows through Paris.'];
    const vectors = await embeddings.embedDocuments(documents);
    expect(vectors).toHaveLength(2);
    vectors.forEach((vector, index) => {
      expect(vector).toHaveLength(DIMENSIONS);
      expect(vector.map((value) => Math.fround(value))).toEqual(expected(documents[index] ?? ''));
    });
    expect(await embeddings.embedQuery('capital of France')).toHaveLength(DIMENSIONS);
  });

  it('answers the openai SDK with the demo table’s embedding model, base64 decoded', async () => {
    const answer = await client.embeddings.create({ model: 'auto', input: 'hello' });
    expect(answer.model).toBe(MODEL);
    expect(answer.data[0]?.embedding).toEqual(expected('hello'));
    expect(answer.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('lists the embedding model and retrieves every listed model by id', async () => {
    const listed = await client.models.list();
    const ids = listed.data.map((model) => model.id);
    expect(ids).toContain(MODEL);
    expect(ids).toContain('Qwen/Qwen3-235B-A22B');
    for (const id of ids) expect((await client.models.retrieve(id)).id).toBe(id);
  });
});
