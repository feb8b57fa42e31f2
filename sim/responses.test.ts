import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulatedBackend } from './create-simulated-backend.js';
import type { SimBackend } from './types.js';

describe('the simulator serves /v1/responses like vLLM', () => {
  let served: SimBackend;
  let refused: SimBackend;
  beforeAll(async () => {
    served = await createSimulatedBackend({ id: 'a', models: ['m'], answerTokens: 6 });
    refused = await createSimulatedBackend({ id: 'b', models: ['m'], responses: false });
  });
  afterAll(async () => {
    await served.close();
    await refused.close();
  });

  it('answers a Response and a typed event stream the openai SDK accumulates, with no [DONE]', async () => {
    const client = new OpenAI({ baseURL: served.baseUrl, apiKey: 'x', maxRetries: 0 });
    const response = await client.responses.create({ model: 'm', input: 'hello' });
    expect(response).toMatchObject({ object: 'response', status: 'completed', model: 'm' });
    expect(response.id).toMatch(/^resp_/);
    expect(response.usage?.output_tokens).toBe(6);
    const final = await client.responses.stream({ model: 'm', input: 'hello' }).finalResponse();
    expect(final.output_text).toBe(response.output_text);
    const raw = await fetch(`${served.baseUrl}/responses`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', input: 'hello', stream: true }),
    });
    const text = await raw.text();
    expect(text.startsWith('event: response.created\ndata: {')).toBe(true);
    expect(text).not.toContain('[DONE]');
    expect(text.trimEnd().split('\n\n').at(-1)).toMatch(/^event: response\.completed\n/);
    expect(served.stats().responsesRequests).toBe(3);
  });

  it('calls tools from flat function tools and answers after function_call_output', async () => {
    const client = new OpenAI({ baseURL: served.baseUrl, apiKey: 'x', maxRetries: 0 });
    const tools = [
      {
        type: 'function' as const,
        name: 'weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        strict: false,
      },
    ];
    const first = await client.responses.create({ model: 'm', input: 'weather?', tools });
    const call = first.output[0];
    expect(call?.type).toBe('function_call');
    if (call?.type !== 'function_call') return;
    const second = await client.responses.create({
      model: 'm',
      tools,
      input: [
        { role: 'user', content: 'weather?' },
        { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
      ],
    });
    expect(second.output.map((item) => item.type)).toEqual(['message']);
  });

  it('answers 404 on /v1/responses when built without it, like a server that lacks the API', async () => {
    const response = await fetch(`${refused.baseUrl}/responses`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', input: 'hello' }),
    });
    expect(response.status).toBe(404);
    expect(refused.stats().responsesRequests).toBe(0);
  });
});
