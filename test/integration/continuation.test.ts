import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { FaultSpec, ReasoningMode } from '../../sim/index.js';
import { sample as readCounter } from '../helpers/prometheus.js';
import { HELLO, simpleTable, startStack, type Stack } from '../helpers/start-stack.js';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

interface Setup {
  fault: FaultSpec;
  reasoning?: ReasoningMode;
}

/** a (broken by `fault`) and b, both vLLM-like and marked `continuation: true`; a is tried first. */
async function start(setup: Setup): Promise<{ stack: Stack; client: OpenAI }> {
  const reasoning = setup.reasoning ?? 'reasoning_content';
  stack = await startStack({
    backends: [
      { id: 'a', models: ['sim-model'], reasoning, fault: setup.fault },
      { id: 'b', models: ['sim-model'], reasoning },
    ],
    table: (urls) => {
      const table = simpleTable({ urls, group: ['a', 'b'] });
      return { ...table, deployments: table.deployments.map((entry) => ({ ...entry, continuation: true })) };
    },
    random: () => 0,
  });
  return { stack, client: new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: 'unused', maxRetries: 0 }) };
}

interface StreamedAnswer {
  content: string;
  reasoning: string;
  chunks: Record<string, unknown>[];
  error: unknown;
}

/** Streams through the real openai SDK, as a client library reads it. */
async function stream(client: OpenAI, extra: Record<string, unknown> = {}): Promise<StreamedAnswer> {
  const chunks: Record<string, unknown>[] = [];
  let content = '';
  let reasoning = '';
  try {
    const response = await client.chat.completions.create({
      model: 'tier:SIMPLE',
      messages: [{ role: 'user', content: 'hello there' }],
      max_tokens: 16,
      stream: true,
      stream_options: { include_usage: true },
      ...extra,
    } as OpenAI.Chat.ChatCompletionCreateParamsStreaming);
    for await (const chunk of response) {
      chunks.push(chunk as unknown as Record<string, unknown>);
      const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string } | undefined;
      content += delta?.content ?? '';
      reasoning += delta?.reasoning_content ?? '';
    }
    return { content, reasoning, chunks, error: undefined };
  } catch (error) {
    return { content, reasoning, chunks, error };
  }
}

/** What `a` answers the same request when nothing breaks (asked directly: the router has it benched). */
async function uninterrupted(_client: OpenAI, extra: Record<string, unknown> = {}): Promise<string> {
  const sim = stack?.sim('a');
  if (sim === undefined) throw new Error('no stack');
  sim.setFault(null);
  const direct = new OpenAI({ baseURL: sim.baseUrl, apiKey: 'unused', maxRetries: 0 });
  const response = await direct.chat.completions.create({
    model: 'sim-model',
    messages: [{ role: 'user', content: 'hello there' }],
    max_tokens: 16,
    ...extra,
  } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming);
  return response.choices[0]?.message.content ?? '';
}

describe('a broken stream continued on another deployment, as the openai SDK sees it', () => {
  it('one answer: one id, one role delta, usage summed over both legs, the switch on the final chunk', async () => {
    const { stack, client } = await start({ fault: { name: 'cut_mid_stream', params: { after: 5 } } });
    const answer = await stream(client);
    expect(answer.error).toBeUndefined();
    expect(new Set(answer.chunks.map((chunk) => chunk['id'])).size).toBe(1);
    const roles = answer.chunks.filter(
      (chunk) => (chunk['choices'] as { delta?: { role?: string } }[])[0]?.delta?.role !== undefined,
    );
    expect(roles).toHaveLength(1);
    const last = answer.chunks.at(-1) as {
      usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
      autotier: { continuations: Record<string, unknown>[] };
    };
    expect(last.autotier.continuations).toEqual([
      { from: 'a', to: 'b', model: 'sim-model', reason: 'upstream_stream_cut', delivered_tokens: 5 },
    ]);
    // 16 tokens in all: 5 from a, 11 from b; a's prompt (estimated: it broke before its usage) + b's
    expect(last.usage.completion_tokens).toBe(16);
    expect(last.usage.total_tokens).toBe(last.usage.prompt_tokens + 16);
    expect(stack.sim('b').stats().chatRequests).toBe(1);
    const metrics = await (await fetch(`${stack.url}/metrics`)).text();
    expect(readCounter(metrics, 'autotier_continuations_total', { outcome: 'continued' })).toBe(1);
    expect(answer.content).toBe(await uninterrupted(client));
  });

  it('a break inside reasoning_content is not continued: the in-band error, counted as unsound', async () => {
    const { stack, client } = await start({ fault: { name: 'cut_mid_stream', params: { after: 3 } } });
    const answer = await stream(client, { chat_template_kwargs: { enable_thinking: true } });
    expect(answer.reasoning).not.toBe('');
    expect(answer.content).toBe('');
    expect(String(answer.error)).toMatch(/upstream_stream_cut|stream/i);
    expect(stack.sim('b').stats().chatRequests).toBe(0);
    const metrics = await (await fetch(`${stack.url}/metrics`)).text();
    expect(readCounter(metrics, 'autotier_continuations_total', { outcome: 'unsound' })).toBe(1);
  });

  it('a break in the answer after reasoning_content is continued from the answer text', async () => {
    // 8 reasoning tokens, then the answer: cut after 12 events = 4 answer tokens
    const { client } = await start({ fault: { name: 'cut_mid_stream', params: { after: 12 } } });
    const thinking = { chat_template_kwargs: { enable_thinking: true } };
    const answer = await stream(client, thinking);
    expect(answer.error).toBeUndefined();
    expect(answer.reasoning).toBe('Let me think about this step by step.');
    expect(answer.content).toBe(await uninterrupted(client, thinking));
  });

  it('inline <think>: inside it the answer is not continued; after it the answer part is', async () => {
    const inside = await start({
      fault: { name: 'cut_mid_stream', params: { after: 4 } },
      reasoning: 'inline',
    });
    const thinking = { chat_template_kwargs: { enable_thinking: true } };
    const broken = await stream(inside.client, thinking);
    expect(broken.content.startsWith('<think>')).toBe(true);
    expect(broken.error).toBeDefined();
    expect(inside.stack.sim('b').stats().chatRequests).toBe(0);
    await inside.stack.close();
    stack = undefined;
    // <think>\n + 8 reasoning tokens + \n</think>\n\n = 10 events, then 3 answer tokens
    const afterThink = await start({
      fault: { name: 'cut_mid_stream', params: { after: 13 } },
      reasoning: 'inline',
    });
    const answer = await stream(afterThink.client, thinking);
    expect(answer.error).toBeUndefined();
    expect(afterThink.stack.sim('b').stats().chatRequests).toBe(1);
    // b was sent only the answer part as its prefill
    expect(answer.content).toBe(await uninterrupted(afterThink.client, thinking));
  });

  it('a break inside a tool call is not continued', async () => {
    const { stack, client } = await start({ fault: { name: 'cut_mid_stream', params: { after: 2 } } });
    const tools = [
      {
        type: 'function',
        function: {
          name: 'lookup',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    const answer = await stream(client, { tools });
    expect(answer.error).toBeDefined();
    expect(stack.sim('b').stats().chatRequests).toBe(0);
    const metrics = await (await fetch(`${stack.url}/metrics`)).text();
    expect(readCounter(metrics, 'autotier_continuations_total', { outcome: 'unsound' })).toBe(1);
  });

  it('a non-streaming answer is the prefix plus the continuation, with the switch in the body', async () => {
    const { client } = await start({ fault: { name: 'cut_mid_stream', params: { after: 5 } } });
    const response = await client.chat.completions.create({
      model: 'tier:SIMPLE',
      messages: HELLO as OpenAI.Chat.ChatCompletionMessageParam[],
      max_tokens: 16,
    });
    const body = response as unknown as { autotier?: { continuations: { to: string }[] } };
    expect(body.autotier?.continuations[0]?.to).toBe('b');
    expect(response.usage?.completion_tokens).toBe(16);
    expect(response.choices[0]?.message.content).toBe(await uninterrupted(client));
  });
});
