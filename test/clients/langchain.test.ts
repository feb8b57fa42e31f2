import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo, type DemoStack } from '../helpers/start-demo.js';

const SERVED = /^Qwen\/Qwen3-/;

/** A message's usage count (LangChain's `usage_metadata`; its declared type does not resolve here). */
function usageOf(message: { usage_metadata?: unknown }, field: 'input_tokens' | 'output_tokens'): number {
  const usage = message.usage_metadata;
  if (typeof usage !== 'object' || usage === null) return 0;
  const value: unknown = (usage as Record<string, unknown>)[field];
  return typeof value === 'number' ? value : 0;
}

describe("LangChain's ChatOpenAI against the demo", () => {
  let demo: DemoStack;
  let chat: ChatOpenAI;

  beforeAll(async () => {
    demo = await startDemo();
    chat = new ChatOpenAI({
      model: 'auto',
      apiKey: 'any key works in open mode',
      configuration: { baseURL: `${demo.url}/v1` },
      maxRetries: 0,
    });
  }, 60_000);

  afterAll(() => demo.close());

  it('answers invoke with the served model and token usage', async () => {
    const answer = await chat.invoke([new HumanMessage('What is the capital of France?')]);
    expect(answer.text.length).toBeGreaterThan(0);
    expect(answer.response_metadata['model_name']).toMatch(SERVED);
    expect(usageOf(answer, 'input_tokens')).toBeGreaterThan(0);
    expect(usageOf(answer, 'output_tokens')).toBeGreaterThan(0);
  });

  it('streams chunks that concatenate to one answer, with usage at the end', async () => {
    const stream = await chat.stream([new HumanMessage('Give me three tips for better sleep.')]);
    let text = '';
    let outputTokens = 0;
    for await (const chunk of stream) {
      text += typeof chunk.content === 'string' ? chunk.content : '';
      outputTokens += usageOf(chunk, 'output_tokens');
    }
    expect(text.length).toBeGreaterThan(0);
    expect(outputTokens).toBeGreaterThan(0);
  });

  it('round-trips a tool call: the model calls the bound tool, then answers its result', async () => {
    const withTools = chat.bindTools([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Current weather for a city',
          parameters: {
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
          },
        },
      },
    ]);
    const question = new HumanMessage('What is the weather in Paris?');
    const call = await withTools.invoke([question]);
    expect(call.tool_calls).toHaveLength(1);
    const [toolCall] = call.tool_calls ?? [];
    expect(toolCall?.name).toBe('get_weather');
    expect(typeof toolCall?.args['city']).toBe('string');
    const answer = await withTools.invoke([
      question,
      new AIMessage({ content: '', tool_calls: call.tool_calls ?? [] }),
      new ToolMessage({ tool_call_id: toolCall?.id ?? '', content: '{"temperature_c": 18}' }),
    ]);
    expect(answer.tool_calls ?? []).toHaveLength(0);
    expect(answer.text.length).toBeGreaterThan(0);
  });

  it('turns a routing refusal into a thrown error carrying the OpenAI error body', async () => {
    const tooLong = new ChatOpenAI({
      model: 'auto',
      apiKey: 'unused',
      configuration: { baseURL: `${demo.url}/v1` },
      maxRetries: 0,
      maxTokens: -5,
    });
    await expect(tooLong.invoke('hi')).rejects.toThrow(/max_tokens/);
  });
});
