import { afterEach, describe, expect, it } from 'vitest';
import { createSimulatedBackend } from './create-simulated-backend.js';
import { postJson, toSseChunks } from './sim-test-client.js';
import type { SimBackend, SimBackendOptions } from './types.js';

const backends: SimBackend[] = [];
afterEach(async () => {
  await Promise.all(backends.splice(0).map((backend) => backend.close()));
});

async function start(options: Partial<SimBackendOptions> & { id: string }): Promise<SimBackend> {
  const backend = await createSimulatedBackend({ models: ['m'], ...options });
  backends.push(backend);
  return backend;
}

interface Answer {
  status: number;
  content: string;
  finishReason: string | undefined;
  reasoning: string;
  usage: { prompt_tokens: number; completion_tokens: number } | undefined;
  error: string | undefined;
}

async function chat(
  backend: SimBackend,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await postJson(
    `${backend.baseUrl}/chat/completions`,
    { model: 'm', ...body },
    { headers },
  );
  const json = (await response.json()) as {
    choices?: { finish_reason: string; message: { content: string; reasoning_content?: string } }[];
    usage?: Answer['usage'];
    error?: { message: string };
  };
  const choice = json.choices?.[0];
  return {
    status: response.status,
    content: choice?.message.content ?? '',
    finishReason: choice?.finish_reason,
    reasoning: choice?.message.reasoning_content ?? '',
    usage: json.usage,
    error: json.error?.message,
  };
}

const messages = [{ role: 'user', content: 'Explain the router in detail.' }];
const prefill = (content: string) => ({
  messages: [...messages, { role: 'assistant', content }],
  continue_final_message: true,
  add_generation_prompt: false,
});

describe('the simulator continues a final assistant message like vLLM', () => {
  it('continues another backend’s answer word for word: prefix + continuation = the uninterrupted answer', async () => {
    const first = await start({ id: 'a' });
    const second = await start({ id: 'b' });
    const whole = await chat(first, { messages, max_tokens: 20 });
    expect(whole.content).toMatch(/^Answer from a: /);
    const words = whole.content.match(/\s*\S+/g) ?? [];
    const prefix = words.slice(0, 7).join('');
    const rest = await chat(second, { ...prefill(prefix), max_tokens: 20 - 7 });
    expect(rest.status).toBe(200);
    expect(prefix + rest.content).toBe(whole.content);
    expect(rest.finishReason).toBe(whole.finishReason);
    expect(rest.usage?.completion_tokens).toBe(13);
    // the prefill counts as prompt
    expect(rest.usage?.prompt_tokens).toBeGreaterThan(whole.usage?.prompt_tokens ?? Infinity);
  });

  it('continues a prefix that ends inside a word (natural length from x-sim-tokens)', async () => {
    const first = await start({ id: 'a' });
    const length = { 'x-sim-tokens': '12' };
    const whole = await chat(first, { messages }, length);
    const prefix = whole.content.slice(0, 23);
    const rest = await chat(first, prefill(prefix), length);
    expect(prefix + rest.content).toBe(whole.content);
  });

  it('continues text it did not write with filler, and never thinks before the prefill', async () => {
    const backend = await start({ id: 'a' });
    const rest = await chat(backend, {
      ...prefill('Some other model wrote'),
      max_tokens: 5,
      chat_template_kwargs: { enable_thinking: true },
    });
    expect(rest.status).toBe(200);
    expect(rest.content).toMatch(/^( \S+){5}$/);
    expect(rest.reasoning).toBe('');
    expect(rest.finishReason).toBe('length');
  });

  it('streams the continuation with one role chunk and usage, like any stream', async () => {
    const backend = await start({ id: 'a' });
    const response = await postJson(`${backend.baseUrl}/chat/completions`, {
      model: 'm',
      ...prefill('Answer from a:'),
      max_tokens: 4,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = toSseChunks(await response.text()) as {
      choices: { delta: { content?: string } }[];
      usage?: { completion_tokens: number };
    }[];
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text).toMatch(/^( \S+){4}$/);
    expect(chunks.at(-1)?.usage?.completion_tokens).toBe(4);
  });

  it('refuses what vLLM refuses: both flags, or a final message that is not the assistant’s', async () => {
    const backend = await start({ id: 'a' });
    const both = await chat(backend, { ...prefill('Answer'), add_generation_prompt: true });
    expect(both.status).toBe(400);
    expect(both.error).toMatch(/add_generation_prompt/);
    const notAssistant = await chat(backend, {
      messages,
      continue_final_message: true,
      add_generation_prompt: false,
    });
    expect(notAssistant.status).toBe(400);
  });

  it('a backend without the capability refuses a continuation with a 400 and answers plain requests', async () => {
    const backend = await start({ id: 'mlx', continuation: false });
    const refused = await chat(backend, prefill('Answer from a:'));
    expect(refused.status).toBe(400);
    expect(refused.error).toMatch(/continue_final_message/);
    expect((await chat(backend, { messages })).status).toBe(200);
  });
});
