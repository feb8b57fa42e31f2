import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simpleTable, startStack, type Stack } from '../helpers/start-stack.js';

const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: 'get_time',
      parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
    },
  },
];
const ASK = [{ role: 'user' as const, content: 'weather and time in Paris?' }];

describe('OpenAI features pass through intact (official openai client)', () => {
  let stack: Stack;
  let client: OpenAI;
  beforeAll(async () => {
    stack = await startStack({
      backends: [
        { id: 'a', models: ['sim-model'] },
        { id: 'complete', models: ['sim-model'] },
      ],
      table: (urls) => ({
        ...simpleTable({ urls, group: ['a'] }),
        autocomplete: {
          group: ['complete'],
          timeouts: { connect_ms: 300, ttft_ms: 1000, idle_ms: 500, total_ms: 3000 },
          max_tokens: { cap: 64, default: 16 },
        },
      }),
    });
    client = new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  afterAll(() => stack.close());

  it('returns parallel tool calls, non-stream and stream', async () => {
    const completion = await client.chat.completions.create({
      model: 'tier:SIMPLE',
      messages: ASK,
      tools: TOOLS,
      parallel_tool_calls: true,
    });
    const names = completion.choices[0]?.message.tool_calls?.map((call) =>
      call.type === 'function' ? call.function.name : '',
    );
    expect(names).toEqual(['get_weather', 'get_time']);
    const stream = await client.chat.completions.create({
      model: 'tier:SIMPLE',
      messages: ASK,
      tools: TOOLS,
      parallel_tool_calls: true,
      stream: true,
    });
    const streamed = new Map<number, string>();
    for await (const chunk of stream)
      for (const call of chunk.choices[0]?.delta.tool_calls ?? [])
        streamed.set(call.index, (streamed.get(call.index) ?? '') + (call.function?.name ?? ''));
    expect([...streamed.values()]).toEqual(['get_weather', 'get_time']);
  });

  it('passes parallel_tool_calls: false through', async () => {
    const completion = await client.chat.completions.create({
      model: 'tier:SIMPLE',
      messages: ASK,
      tools: TOOLS,
      parallel_tool_calls: false,
    });
    expect(completion.choices[0]?.message.tool_calls).toHaveLength(1);
  });

  it('returns n choices, non-stream and stream', async () => {
    const completion = await client.chat.completions.create({
      model: 'tier:SIMPLE',
      messages: [{ role: 'user', content: 'hi' }],
      n: 3,
    });
    expect(completion.choices.map((choice) => choice.index)).toEqual([0, 1, 2]);
    const stream = await client.chat.completions.create({
      model: 'tier:SIMPLE',
      messages: [{ role: 'user', content: 'hi' }],
      n: 2,
      stream: true,
    });
    const indexes = new Set<number>();
    for await (const chunk of stream) for (const choice of chunk.choices) indexes.add(choice.index);
    expect([...indexes].sort()).toEqual([0, 1]);
  });

  it('returns logprobs, non-stream and stream', async () => {
    const completion = await client.chat.completions.create({
      model: 'tier:SIMPLE',
      messages: [{ role: 'user', content: 'hi' }],
      logprobs: true,
      top_logprobs: 2,
    });
    const content = completion.choices[0]?.logprobs?.content ?? [];
    expect(content.length).toBeGreaterThan(0);
    expect(content[0]?.top_logprobs).toHaveLength(2);
    const stream = await client.chat.completions.create({
      model: 'tier:SIMPLE',
      messages: [{ role: 'user', content: 'hi' }],
      logprobs: true,
      stream: true,
    });
    let tokens = 0;
    for await (const chunk of stream) tokens += chunk.choices[0]?.logprobs?.content?.length ?? 0;
    expect(tokens).toBeGreaterThan(0);
  });

  it('honors response_format json_schema, non-stream and stream', async () => {
    const response_format = {
      type: 'json_schema' as const,
      json_schema: {
        name: 'answer',
        schema: {
          type: 'object',
          properties: { city: { type: 'string' }, rank: { type: 'number' } },
          required: ['city', 'rank'],
        },
      },
    };
    const completion = await client.chat.completions.create({
      model: 'tier:SIMPLE',
      messages: [{ role: 'user', content: 'json please' }],
      response_format,
    });
    expect(JSON.parse(completion.choices[0]?.message.content ?? '')).toMatchObject({
      city: expect.any(String) as unknown,
      rank: expect.any(Number) as unknown,
    });
    const stream = await client.chat.completions.create({
      model: 'tier:SIMPLE',
      messages: [{ role: 'user', content: 'json please' }],
      response_format,
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(JSON.parse(text)).toHaveProperty('city');
  });

  it('sends legacy completions to the autocomplete group with suffix, non-stream and stream', async () => {
    const completion = await client.completions.create({
      model: 'anything',
      prompt: 'def add(a, b):\n    ',
      suffix: '\n\nprint(add(1, 2))',
      max_tokens: 8,
    });
    expect(completion.object).toBe('text_completion');
    expect(completion.choices[0]?.text).toContain('[suffix:');
    expect(stack.sim('complete').stats().completionRequests).toBe(1);
    const stream = await client.completions.create({
      model: 'anything',
      prompt: 'const x = ',
      max_tokens: 8,
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
    expect(text.length).toBeGreaterThan(0);
    expect(stack.sim('a').stats().completionRequests).toBe(0);
  });
});
