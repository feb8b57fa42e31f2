import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELLO, postChat, simpleTable, startStack, toSseData, type Stack } from '../helpers/start-stack.js';

describe('the OpenAI-compatible API', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      backends: [
        { id: 'a', models: ['sim-model'] },
        { id: 'b', models: ['sim-model'] },
      ],
      table: (urls) => simpleTable({ urls, group: ['a'], fallback: ['b'] }),
    });
  });
  afterAll(() => stack.close());

  it('answers a non-streaming request with a chat.completion from the model that answered', async () => {
    const response = await postChat(stack.url, { model: 'tier:SIMPLE', messages: HELLO });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      object: string;
      model: string;
      choices: { message: { content: string }; finish_reason: string }[];
      usage: { total_tokens: number };
    };
    expect(body.object).toBe('chat.completion');
    expect(body.model).toBe('sim-model');
    expect(body.choices[0]?.message.content.length).toBeGreaterThan(0);
    expect(body.choices[0]?.finish_reason).toBe('length');
    expect(body.usage.total_tokens).toBeGreaterThan(0);
    expect(response.headers.get('x-autotier-tier')).toBe('SIMPLE');
    expect(response.headers.get('x-autotier-deployment')).toBe('a');
    expect(response.headers.get('x-autotier-attempts')).toBe('1');
    expect(response.headers.get('x-autotier-fallbacks')).toBe('0');
    expect(Number(response.headers.get('x-autotier-overhead-ms'))).toBeGreaterThanOrEqual(0);
    expect(response.headers.get('x-request-id')).toMatch(/.+/);
  });

  it('streams SSE with no-buffering headers, a role chunk first and [DONE] last', async () => {
    const response = await postChat(stack.url, { model: 'tier:COMPLEX', messages: HELLO, stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const events = toSseData(await response.text());
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map(
      (data) =>
        JSON.parse(data) as {
          choices: { delta: { role?: string; content?: string }; finish_reason: string | null }[];
        },
    );
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('length');
    expect(chunks.every((chunk) => chunk.choices.length > 0)).toBe(true);
  });

  it('passes the usage chunk through only when the client asks for it', async () => {
    const response = await postChat(stack.url, {
      model: 'tier:SIMPLE',
      messages: HELLO,
      stream: true,
      stream_options: { include_usage: true },
    });
    const events = toSseData(await response.text());
    const usage = JSON.parse(events.at(-2) ?? '{}') as {
      choices: unknown[];
      usage: { completion_tokens: number };
    };
    expect(usage.choices).toEqual([]);
    expect(usage.usage.completion_tokens).toBe(16);
  });

  it('caps max_tokens at the tier cap', async () => {
    const response = await postChat(stack.url, {
      model: 'tier:SIMPLE',
      messages: HELLO,
      max_tokens: 100_000,
    });
    const body = (await response.json()) as { usage: { completion_tokens: number } };
    expect(body.usage.completion_tokens).toBe(256);
  });

  it('rejects a body without messages with a 400 naming the field', async () => {
    const response = await postChat(stack.url, { model: 'auto' });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { param: string; type: string; code: string } };
    expect(body.error).toMatchObject({
      param: 'messages',
      type: 'invalid_request_error',
      code: 'invalid_request',
    });
  });

  it('names the nested field of a bad message', async () => {
    const response = await postChat(stack.url, {
      model: 'auto',
      messages: [{ role: 'wizard', content: 'x' }],
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe('messages[0].role');
  });

  it('rejects malformed JSON with a 400 in OpenAI shape', async () => {
    const response = await fetch(`${stack.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model": ',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
  });

  it('answers 404 model_not_found for a model it does not serve', async () => {
    const response = await postChat(stack.url, { model: 'gpt-9', messages: HELLO });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string; param: string } }).error).toMatchObject({
      code: 'model_not_found',
      param: 'model',
    });
  });

  it('routes a concrete model name to its deployments without classification', async () => {
    const response = await postChat(stack.url, { model: 'sim-model', messages: HELLO });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autotier-classifier')).toBe('override');
  });

  it('lists auto, the tier aliases and every served model', async () => {
    const body = (await (await fetch(`${stack.url}/v1/models`)).json()) as { data: { id: string }[] };
    expect(body.data.map((model) => model.id)).toEqual([
      'auto',
      'tier:SIMPLE',
      'tier:MODERATE',
      'tier:COMPLEX',
      'tier:EXPERT',
      'sim-model',
    ]);
  });

  it('reports liveness and readiness', async () => {
    expect((await fetch(`${stack.url}/health`)).status).toBe(200);
    expect((await fetch(`${stack.url}/ready`)).status).toBe(200);
  });

  it("answers with autotier's own x-request-id and echoes the client's as x-client-request-id", async () => {
    const response = await postChat(
      stack.url,
      { model: 'tier:SIMPLE', messages: HELLO },
      { 'x-request-id': 'abc-123' },
    );
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get('x-client-request-id')).toBe('abc-123');
  });
});
