import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSimulatedBackend } from './create-simulated-backend.js';
import { postJson, toSseChunks } from './sim-test-client.js';
import type { SimBackend } from './types.js';

const user = (content: string) => [{ role: 'user', content }];
let backend: SimBackend;

beforeEach(async () => {
  backend = await createSimulatedBackend({ id: 'sim-b', models: ['model-b'], contextWindow: 1000 });
});
afterEach(() => backend.close());

interface ChatBody {
  model: string;
  object: string;
  id: string;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  choices: {
    index: number;
    finish_reason: string;
    message: { content: string | null; reasoning_content?: string };
  }[];
}

async function chat(body: Record<string, unknown>, headers?: Record<string, string>): Promise<ChatBody> {
  const response = await postJson(
    `${backend.baseUrl}/chat/completions`,
    { model: 'model-b', ...body },
    { headers: headers ?? {} },
  );
  expect(response.status).toBe(200);
  return (await response.json()) as ChatBody;
}

describe('non-stream chat completions', () => {
  it('answers with usage counted as ceil(chars / 4) + 4 per message and 16 tokens by default', async () => {
    const body = await chat({
      messages: [{ role: 'system', content: 'Be brief.' }, ...user('What is 2+2?')],
    });
    expect(body.object).toBe('chat.completion');
    expect(body.id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
    expect(body.model).toBe('model-b');
    expect(body.usage).toEqual({
      prompt_tokens: 3 + 4 + 3 + 4,
      completion_tokens: 16,
      total_tokens: 30,
      prompt_tokens_details: null,
    });
    expect(body.choices[0]?.message.content).toMatch(/^Answer from sim-b: /);
    expect(body.choices[0]?.finish_reason).toBe('stop');
  });

  it('generates max_tokens tokens and finishes with length', async () => {
    const body = await chat({ messages: user('hi'), max_tokens: 40 });
    expect(body.usage.completion_tokens).toBe(40);
    expect(body.choices[0]?.finish_reason).toBe('length');
  });

  it('takes the reply length from x-sim-tokens and stops before max_tokens', async () => {
    const body = await chat({ messages: user('hi'), max_tokens: 40 }, { 'x-sim-tokens': '7' });
    expect(body.usage.completion_tokens).toBe(7);
    expect(body.choices[0]?.finish_reason).toBe('stop');
  });

  it('returns n choices with indexes 0..n-1', async () => {
    const body = await chat({ messages: user('hi'), n: 3, max_tokens: 4 });
    expect(body.choices.map((choice) => choice.index)).toEqual([0, 1, 2]);
    expect(body.usage.completion_tokens).toBe(12);
  });

  it('answers json_schema requests with JSON holding the required properties', async () => {
    const schema = {
      type: 'object',
      properties: {
        complexity: { type: 'string', enum: ['SIMPLE', 'EXPERT'] },
        reason: { type: 'string' },
        needs_vision: { type: 'boolean' },
        score: { type: 'number' },
        optional: { type: 'string' },
      },
      required: ['complexity', 'reason', 'needs_vision', 'score'],
    };
    const body = await chat({
      messages: user('classify'),
      response_format: { type: 'json_schema', json_schema: { name: 'c', schema } },
    });
    expect(JSON.parse(body.choices[0]?.message.content ?? '')).toEqual({
      complexity: 'SIMPLE',
      reason: 'x',
      needs_vision: true,
      score: 1,
    });
    const object = await chat({ messages: user('json'), response_format: { type: 'json_object' } });
    expect(() => JSON.parse(object.choices[0]?.message.content ?? '') as unknown).not.toThrow();
  });

  it('puts <think> inline before the answer when the backend has no reasoning parser', async () => {
    const inline = await createSimulatedBackend({ id: 'sim-i', models: ['m'], reasoning: 'inline' });
    try {
      const response = await postJson(`${inline.baseUrl}/chat/completions`, {
        model: 'm',
        messages: user('hi'),
        // 10 tokens of inline reasoning count against max_tokens, as in vLLM: 2 are left for the answer
        max_tokens: 12,
        chat_template_kwargs: { enable_thinking: true },
      });
      const body = (await response.json()) as ChatBody;
      expect(body.choices[0]?.message.content).toBe(
        '<think>\nLet me think about this step by step.\n</think>\n\nAnswer from',
      );
      expect(body.choices[0]?.message.reasoning_content).toBeUndefined();
    } finally {
      await inline.close();
    }
  });

  it('waits the whole generation time before answering', async () => {
    backend.setLatency({ ttftMs: 100, tokensPerSecond: 100 });
    const started = performance.now();
    await chat({ messages: user('hi'), max_tokens: 10 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });
});

describe('vLLM errors', () => {
  it('answers an unknown model with 404 in the current vLLM error shape', async () => {
    const response = await postJson(`${backend.baseUrl}/chat/completions`, {
      model: 'nope',
      messages: user('hi'),
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        message: 'The model `nope` does not exist.',
        type: 'NotFoundError',
        param: 'model',
        code: 404,
      },
    });
  });

  it('rejects prompt + max_tokens beyond the context window with vLLM wording', async () => {
    const response = await postJson(`${backend.baseUrl}/chat/completions`, {
      model: 'model-b',
      messages: user('x'.repeat(400)),
      max_tokens: 950,
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { message: string; type: string; code: number } };
    expect(error.message).toBe(
      "'max_tokens' or 'max_completion_tokens' is too large: 950. This model's maximum context length is 1000 tokens and your request has 104 input tokens (950 > 1000 - 104).",
    );
    expect(error.type).toBe('BadRequestError');
    expect(error.code).toBe(400);
  });

  it('rejects a prompt as long as the window even without max_tokens', async () => {
    const response = await postJson(`${backend.baseUrl}/chat/completions`, {
      model: 'model-b',
      messages: user('x'.repeat(4000)),
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain(
      "This model's maximum context length is 1000 tokens",
    );
  });

  it('answers a body that is not a JSON object with 400', async () => {
    const response = await fetch(`${backend.baseUrl}/chat/completions`, { method: 'POST', body: '{oops' });
    expect(response.status).toBe(400);
  });
});

describe('other endpoints', () => {
  it('lists served models owned by vllm with max_model_len', async () => {
    const body = (await (await fetch(`${backend.baseUrl}/models`)).json()) as {
      object: string;
      data: Record<string, unknown>[];
    };
    expect(body.object).toBe('list');
    expect(body.data).toEqual([
      expect.objectContaining({ id: 'model-b', object: 'model', owned_by: 'vllm', max_model_len: 1000 }),
    ]);
  });

  it('answers /health with 200 and an empty body', async () => {
    const response = await fetch(backend.baseUrl.replace(/\/v1$/, '/health'));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });

  it('answers legacy completions and marks a passed-through suffix', async () => {
    const response = await postJson(`${backend.baseUrl}/completions`, {
      model: 'model-b',
      prompt: 'def add(a, b):',
      suffix: '\n\nprint(add(1, 2))',
      max_tokens: 5,
    });
    const body = (await response.json()) as {
      object: string;
      choices: { text: string }[];
      usage: { completion_tokens: number };
    };
    expect(body.object).toBe('text_completion');
    expect(body.choices[0]?.text).toMatch(/ \[suffix:18\]$/);
    expect(body.usage.completion_tokens).toBe(5);
  });

  it('answers every prompt of a legacy prompt array n times, with their tokens in the usage', async () => {
    const response = await postJson(`${backend.baseUrl}/completions`, {
      model: 'model-b',
      prompt: ['abcd', 'abcdefgh', 'abcdefghijkl'],
      n: 2,
      max_tokens: 4,
    });
    const body = (await response.json()) as {
      choices: { index: number }[];
      usage: { prompt_tokens: number; completion_tokens: number };
    };
    expect(body.choices.map((choice) => choice.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(body.usage).toMatchObject({ prompt_tokens: 1 + 2 + 3, completion_tokens: 6 * 4 });
  });

  it('streams legacy completions as text chunks ending with [DONE]', async () => {
    const response = await postJson(`${backend.baseUrl}/completions`, {
      model: 'model-b',
      prompt: 'Once',
      max_tokens: 3,
      stream: true,
    });
    const text = await response.text();
    const chunks = toSseChunks(text);
    expect(chunks.map((chunk) => (chunk['choices'] as { text: string }[])[0]?.text).join('')).toBe(
      'Answer from sim-b:',
    );
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(backend.stats().completionRequests).toBe(1);
  });
});

describe('scripted responder', () => {
  it('replies with the scripted content, e.g. a classifier verdict', async () => {
    const verdict = '{"complexity":"EXPERT","reason":"proof","needs_vision":false}';
    backend.setResponder(({ body }) =>
      (body as { model: string }).model === 'model-b' ? { content: verdict } : undefined,
    );
    const body = await chat({ messages: user('prove it') });
    expect(body.choices[0]?.message.content).toBe(verdict);
  });

  it('answers with the scripted status and message in the vLLM error shape', async () => {
    backend.setResponder(() => ({ status: 500, errorMessage: 'engine died' }));
    const response = await postJson(`${backend.baseUrl}/chat/completions`, {
      model: 'model-b',
      messages: user('hi'),
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: { message: 'engine died', type: 'InternalServerError', param: null, code: 500 },
    });
  });

  it('delays the scripted reply by delayMs and falls back to the default once removed', async () => {
    backend.setResponder(() => ({ content: 'slow', delayMs: 150 }));
    const started = performance.now();
    expect((await chat({ messages: user('hi') })).choices[0]?.message.content).toBe('slow');
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    backend.setResponder(null);
    expect((await chat({ messages: user('hi') })).choices[0]?.message.content).toMatch(/^Answer from/);
  });
});
