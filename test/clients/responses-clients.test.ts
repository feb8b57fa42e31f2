import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { embed, embedMany } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type DemoStack } from '../helpers/start-demo.js';

describe('the client set-ups of docs/clients.md that use the Responses API and embeddings, against the demo', () => {
  let demo: DemoStack;

  beforeAll(async () => {
    demo = await startDemo();
  }, 60_000);

  afterAll(() => demo.close());

  it("answers LangChain's ChatOpenAI with useResponsesApi, buffered and streamed", async () => {
    const chat = new ChatOpenAI({
      model: 'auto',
      apiKey: 'any key works in open mode',
      configuration: { baseURL: `${demo.url}/v1` },
      useResponsesApi: true,
      maxRetries: 0,
    });
    const answer = await chat.invoke('What is the capital of France?');
    expect(answer.text.length).toBeGreaterThan(0);
    expect(String(answer.response_metadata['model_name'] ?? answer.response_metadata['model'])).toMatch(
      /^Qwen\/Qwen3-/,
    );
    let streamed = '';
    for await (const chunk of await chat.stream('Give me three tips for better sleep.'))
      streamed += chunk.text;
    expect(streamed.length).toBeGreaterThan(0);
  });

  it("answers the AI SDK's embed and embedMany with the demo's embedding model", async () => {
    const autotier = createOpenAI({ baseURL: `${demo.url}/v1`, apiKey: 'any key works in open mode' });
    const { embedding } = await embed({ model: autotier.embedding('auto'), value: 'sunny day at the beach' });
    expect(embedding).toHaveLength(1024);
    const { embeddings } = await embedMany({ model: autotier.embedding('auto'), values: ['a', 'b'] });
    expect(embeddings).toHaveLength(2);
    expect(embeddings[0]).not.toEqual(embeddings[1]);
  });
});
