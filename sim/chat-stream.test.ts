import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSimulatedBackend } from './create-simulated-backend.js';
import { postJson, readTimed, toSseChunks, toSsePayloads } from './sim-test-client.js';
import type { SimBackend } from './types.js';

const NOW_MS = 1_700_000_000_000;
const user = (content: string) => [{ role: 'user', content }];
let backend: SimBackend;

beforeEach(async () => {
  backend = await createSimulatedBackend({
    id: 'sim-a',
    models: ['model-a', 'model-a-alias'],
    random: () => 0.5,
    clock: { now: () => NOW_MS },
  });
});
afterEach(() => backend.close());

async function streamText(body: Record<string, unknown>): Promise<string> {
  const response = await postJson(`${backend.baseUrl}/chat/completions`, {
    model: 'model-a',
    stream: true,
    ...body,
  });
  expect(response.status).toBe(200);
  return response.text();
}

describe('chat completion streams', () => {
  it('frames the stream byte for byte like vLLM: role chunk, token chunks, finish chunk, [DONE]', async () => {
    const text = await streamText({ messages: user('hi'), max_tokens: 3 });
    const id = 'chatcmpl-80000000800000000000000000000001';
    const prefix = `data: {"id":"${id}","object":"chat.completion.chunk","created":1700000000,"model":"model-a","choices":[{"index":0,`;
    const open = '"logprobs":null,"finish_reason":null}]}\n\n';
    expect(text).toBe(
      `${prefix}"delta":{"role":"assistant","content":""},${open}` +
        `${prefix}"delta":{"content":"Answer"},${open}` +
        `${prefix}"delta":{"content":" from"},${open}` +
        `${prefix}"delta":{"content":" sim-a:"},${open}` +
        `${prefix}"delta":{},"logprobs":null,"finish_reason":"length","stop_reason":null}]}\n\n` +
        'data: [DONE]\n\n',
    );
  });

  it('sends a usage chunk with empty choices just before [DONE] only when include_usage is true', async () => {
    const withUsage = toSsePayloads(
      await streamText({ messages: user('hi'), max_tokens: 5, stream_options: { include_usage: true } }),
    );
    expect(withUsage.at(-1)).toBe('[DONE]');
    const usageChunk = JSON.parse(withUsage.at(-2) ?? '{}') as Record<string, unknown>;
    expect(usageChunk['choices']).toEqual([]);
    expect(usageChunk['usage']).toEqual({ prompt_tokens: 5, total_tokens: 10, completion_tokens: 5 });
    const without = toSseChunks(
      await streamText({ messages: user('hi'), stream_options: { include_usage: false } }),
    );
    expect(without.some((chunk) => 'usage' in chunk)).toBe(false);
  });

  it('reports the served model name that was asked for', async () => {
    const chunks = toSseChunks(await streamText({ model: 'model-a-alias', messages: user('hi') }));
    expect(new Set(chunks.map((chunk) => chunk['model']))).toEqual(new Set(['model-a-alias']));
  });

  it('streams n choices interleaved, each with its own role chunk and finish chunk', async () => {
    const chunks = toSseChunks(await streamText({ messages: user('hi'), n: 3, max_tokens: 2 }));
    const choices = chunks.map(
      (chunk) => (chunk['choices'] as { index: number; finish_reason: unknown }[])[0],
    );
    expect(choices.slice(0, 3).map((choice) => choice?.index)).toEqual([0, 1, 2]);
    expect(choices.slice(3, 9).map((choice) => choice?.index)).toEqual([0, 1, 2, 0, 1, 2]);
    expect(choices.slice(9).map((choice) => [choice?.index, choice?.finish_reason])).toEqual([
      [0, 'length'],
      [1, 'length'],
      [2, 'length'],
    ]);
  });

  it('streams reasoning in delta.reasoning_content before content when thinking is enabled', async () => {
    const chunks = toSseChunks(
      await streamText({
        messages: user('hi'),
        // 8 reasoning tokens count against max_tokens, as in vLLM: 2 are left for the answer
        max_tokens: 10,
        chat_template_kwargs: { enable_thinking: true },
      }),
    );
    const deltas = chunks
      .slice(1, -1)
      .map((chunk) => (chunk['choices'] as { delta: Record<string, string> }[])[0]?.delta);
    const firstContent = deltas.findIndex((delta) => delta?.['content'] !== undefined);
    expect(
      deltas
        .slice(0, firstContent)
        .map((delta) => delta?.['reasoning_content'])
        .join(''),
    ).toBe('Let me think about this step by step.');
    expect(
      deltas
        .slice(firstContent)
        .map((delta) => delta?.['content'])
        .join(''),
    ).toBe('Answer from');
  });

  it('includes one logprobs.content entry with top_logprobs on each content chunk', async () => {
    const chunks = toSseChunks(
      await streamText({ messages: user('hi'), max_tokens: 2, logprobs: true, top_logprobs: 2 }),
    );
    const choices = chunks.slice(1, 3).map((chunk) => (chunk['choices'] as Record<string, unknown>[])[0]);
    for (const choice of choices) {
      const entries = (
        choice?.['logprobs'] as { content: { token: string; logprob: number; top_logprobs: unknown[] }[] }
      ).content;
      expect(entries).toHaveLength(1);
      expect(entries[0]?.logprob).toBeLessThan(0);
      expect(entries[0]?.top_logprobs).toHaveLength(2);
    }
  });

  it('sends the role chunk at once and holds the first content chunk for ttftMs', async () => {
    backend.setLatency({ ttftMs: 250 });
    const response = await postJson(`${backend.baseUrl}/chat/completions`, {
      model: 'model-a',
      stream: true,
      messages: user('hi'),
    });
    const { pieces } = await readTimed(response);
    const firstContent = pieces.find((piece) => piece.text.includes('"content":"Answer"'));
    expect(pieces[0]?.text).toContain('"role":"assistant"');
    expect(pieces[0]?.at).toBeLessThan(150);
    expect(firstContent?.at).toBeGreaterThanOrEqual(200);
  });

  it('paces tokens at tokensPerSecond', async () => {
    backend.setLatency({ tokensPerSecond: 50 });
    const started = performance.now();
    await streamText({ messages: user('hi'), max_tokens: 11 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(180); // 10 gaps of 20 ms
  });
});

describe('tool-call streams', () => {
  const weather = {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' }, unit: { enum: ['c', 'f'] }, days: { type: 'integer' } },
        required: ['city', 'unit', 'days'],
      },
    },
  };
  const clock = {
    type: 'function',
    function: { name: 'get_time', parameters: { type: 'object', properties: {} } },
  };

  type ToolDelta = {
    index: number;
    id?: string;
    type?: string;
    function: { name?: string; arguments: string };
  };
  const toolDeltas = (text: string): ToolDelta[] =>
    toSseChunks(text).flatMap((chunk) =>
      (chunk['choices'] as { delta: { tool_calls?: ToolDelta[] } }[]).flatMap(
        (choice) => choice.delta.tool_calls ?? [],
      ),
    );

  it('opens each call with index, id, type and name, then streams argument fragments', async () => {
    const text = await streamText({ messages: user('weather in Paris?'), tools: [weather] });
    const deltas = toolDeltas(text);
    expect(deltas[0]).toMatchObject({
      index: 0,
      type: 'function',
      function: { name: 'get_weather', arguments: '' },
    });
    expect(deltas[0]?.id).toMatch(/^chatcmpl-tool-[0-9a-f]{32}$/);
    expect(
      deltas.slice(1).every((delta) => delta.id === undefined && delta.function.name === undefined),
    ).toBe(true);
    const argumentsText = deltas.map((delta) => delta.function.arguments).join('');
    expect(JSON.parse(argumentsText)).toEqual({ city: 'x', unit: 'c', days: 1 });
    const last = toSseChunks(text).at(-1)?.['choices'] as { finish_reason: string }[];
    expect(last[0]?.finish_reason).toBe('tool_calls');
  });

  it('calls the first two tools when parallel_tool_calls is not false', async () => {
    const deltas = toolDeltas(await streamText({ messages: user('both'), tools: [weather, clock] }));
    expect(
      deltas.filter((delta) => delta.id !== undefined).map((delta) => [delta.index, delta.function.name]),
    ).toEqual([
      [0, 'get_weather'],
      [1, 'get_time'],
    ]);
    const single = toolDeltas(
      await streamText({ messages: user('one'), tools: [weather, clock], parallel_tool_calls: false }),
    );
    expect(single.filter((delta) => delta.id !== undefined)).toHaveLength(1);
  });

  it('calls the named tool and finishes with stop, as vLLM does for a named tool_choice', async () => {
    const text = await streamText({
      messages: user('time?'),
      tools: [weather, clock],
      tool_choice: { type: 'function', function: { name: 'get_time' } },
    });
    expect(
      toolDeltas(text)
        .filter((delta) => delta.id !== undefined)
        .map((delta) => delta.function.name),
    ).toEqual(['get_time']);
    expect((toSseChunks(text).at(-1)?.['choices'] as { finish_reason: string }[])[0]?.finish_reason).toBe(
      'stop',
    );
  });

  it('answers with text when tool_choice is none or the last message is a tool result', async () => {
    expect(
      toolDeltas(await streamText({ messages: user('hi'), tools: [weather], tool_choice: 'none' })),
    ).toEqual([]);
    const afterTool = [...user('hi'), { role: 'tool', tool_call_id: 'call-1', content: '20C' }];
    expect(toolDeltas(await streamText({ messages: afterTool, tools: [weather] }))).toEqual([]);
  });
});
