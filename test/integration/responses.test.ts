import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import type { ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLocalClassifier } from '../../src/classify/local-classifier.js';
import type { RoutingTableInput } from '../../src/config/routing-table-schema.js';
import { hashKey } from '../../src/policy/api-keys.js';
import { FAST_TIMEOUTS, startStack, type Stack } from '../helpers/start-stack.js';

/**
 * Four simulated vLLM servers: `native` and `native-broken` serve /v1/responses and the table says so
 * (`responses: true`); `chat` and `chat-broken` do not serve it (404) and are reached by translation.
 * SIMPLE -> native, MODERATE -> chat, COMPLEX -> chat-broken, EXPERT -> native-broken.
 */
const BACKENDS = [
  { id: 'native', models: ['native-model'], responses: true, answerTokens: 8 },
  { id: 'chat', models: ['chat-model'], responses: false, answerTokens: 8 },
  { id: 'native-broken', models: ['native-model'], responses: true, answerTokens: 8 },
  { id: 'chat-broken', models: ['chat-model'], responses: false, answerTokens: 8 },
];

function table(urls: Record<string, string>): RoutingTableInput {
  const deployment = (id: string, model: string, responses: boolean) => ({
    id,
    model,
    base_url: urls[id] ?? '',
    context_window: 32768,
    responses,
  });
  const tier = (id: string) => ({
    group: [id],
    timeouts: { ...FAST_TIMEOUTS, ttft_ms: 3000, idle_ms: 3000, total_ms: 10_000 },
    max_tokens: { cap: 256, default: 64 },
  });
  return {
    deployments: [
      deployment('native', 'native-model', true),
      deployment('chat', 'chat-model', false),
      deployment('native-broken', 'native-model', true),
      deployment('chat-broken', 'chat-model', false),
    ],
    tiers: {
      SIMPLE: tier('native'),
      MODERATE: tier('chat'),
      COMPLEX: tier('chat-broken'),
      EXPERT: tier('native-broken'),
    },
    // a deployment whose stream was cut takes the next request at once (the tests break them on purpose)
    balancer: { cooldown_ms: 0 },
  };
}

const WEATHER_TOOL = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
  strict: true,
};

/** The two ways a Responses request is served, by the tier alias that reaches each. */
const PATHS = [
  { name: 'native pass-through', model: 'tier:SIMPLE', deployment: 'native', served: 'native-model' },
  { name: 'translated to chat', model: 'tier:MODERATE', deployment: 'chat', served: 'chat-model' },
] as const;

describe('POST /v1/responses (the OpenAI Responses API)', () => {
  let stack: Stack;
  let client: OpenAI;
  beforeAll(async () => {
    stack = await startStack({
      backends: BACKENDS,
      classifier: () => createLocalClassifier({ mode: 'heuristic' }),
      table,
    });
    client = new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  afterAll(() => stack.close());

  const served = () =>
    Object.fromEntries(
      BACKENDS.map(({ id }) => {
        const stats = stack.sim(id).stats();
        return [id, { chat: stats.chatRequests, responses: stats.responsesRequests }];
      }),
    );

  for (const path of PATHS) {
    describe(path.name, () => {
      it('answers responses.create with a Response: output_text, the real model, usage and the routing headers', async () => {
        const before = served()[path.deployment];
        const { data, response } = await client.responses
          .create({ model: path.model, input: 'Say hello', instructions: 'Be brief.' })
          .withResponse();
        expect(data.object).toBe('response');
        expect(data.id).toMatch(/^resp_/);
        expect(data.status).toBe('completed');
        expect(data.model).toBe(path.served);
        expect(data.output_text.length).toBeGreaterThan(0);
        expect(data.output[0]?.type).toBe('message');
        expect(data.usage?.output_tokens).toBe(8);
        expect(data.usage?.total_tokens).toBe((data.usage?.input_tokens ?? 0) + 8);
        expect(response.headers.get('x-autotier-deployment')).toBe(path.deployment);
        expect(response.headers.get('x-autotier-tier')).toBe(path.model.slice('tier:'.length));
        const after = served()[path.deployment];
        // the native deployment got /v1/responses; the other one a chat completion
        if (path.deployment === 'native') expect(after?.responses).toBe((before?.responses ?? 0) + 1);
        else expect(after?.chat).toBe((before?.chat ?? 0) + 1);
      });

      it('streams typed events in order, numbered from 0, that the SDK accumulates into the same text', async () => {
        const stream = await client.responses.create({ model: path.model, input: 'Say hello', stream: true });
        const events: ResponseStreamEvent[] = [];
        for await (const event of stream) events.push(event);
        expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
        const types = events.map((event) => event.type);
        expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
        expect(types).toEqual(
          expect.arrayContaining([
            'response.output_item.added',
            'response.content_part.added',
            'response.output_text.delta',
            'response.output_text.done',
            'response.content_part.done',
            'response.output_item.done',
          ]),
        );
        const last = events.at(-1);
        expect(last?.type).toBe('response.completed');
        const deltas = events.flatMap((event) =>
          event.type === 'response.output_text.delta' ? [event.delta] : [],
        );
        const final = last?.type === 'response.completed' ? last.response : undefined;
        expect(final?.model).toBe(path.served);
        expect(final?.usage?.output_tokens).toBe(8);
        const message = final?.output.find((item) => item.type === 'message');
        const text = message?.type === 'message' ? message.content[0] : undefined;
        expect(text?.type === 'output_text' ? text.text : undefined).toBe(deltas.join(''));
        // the SDK's own accumulator checks every event against the snapshot it builds
        const accumulated = await client.responses
          .stream({ model: path.model, input: 'Say hello' })
          .finalResponse();
        expect(accumulated.output_text).toBe(deltas.join(''));
      });

      it('ends as incomplete with max_output_tokens when the answer is cut there', async () => {
        const data = await client.responses.create({
          model: path.model,
          input: 'Say hello',
          max_output_tokens: 3,
        });
        expect(data.status).toBe('incomplete');
        expect(data.incomplete_details?.reason).toBe('max_output_tokens');
        const stream = await client.responses.create({
          model: path.model,
          input: 'Say hello',
          max_output_tokens: 3,
          stream: true,
        });
        const types: string[] = [];
        for await (const event of stream) types.push(event.type);
        expect(types.at(-1)).toBe('response.incomplete');
      });

      it('completes a tool round trip with the openai SDK: function_call, then function_call_output, then an answer', async () => {
        const first = await client.responses.create({
          model: path.model,
          input: [{ role: 'user', content: 'What is the weather in Paris?' }],
          tools: [WEATHER_TOOL],
        });
        const call = first.output.find((item) => item.type === 'function_call');
        expect(call?.type === 'function_call' ? call.name : undefined).toBe('get_weather');
        if (call?.type !== 'function_call') return;
        expect(JSON.parse(call.arguments)).toHaveProperty('city');
        expect(call.call_id.length).toBeGreaterThan(0);
        const input: ResponseInputItem[] = [
          { role: 'user', content: 'What is the weather in Paris?' },
          { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments },
          { type: 'function_call_output', call_id: call.call_id, output: '{"celsius":21}' },
        ];
        const second = await client.responses.create({ model: path.model, input, tools: [WEATHER_TOOL] });
        expect(second.output.some((item) => item.type === 'function_call')).toBe(false);
        expect(second.output_text.length).toBeGreaterThan(0);
        // streamed, the call arrives as function_call_arguments events
        const stream = await client.responses.create({
          model: path.model,
          input: [{ role: 'user', content: 'What is the weather in Paris?' }],
          tools: [WEATHER_TOOL],
          stream: true,
        });
        const argumentDeltas: string[] = [];
        let done: string | undefined;
        for await (const event of stream) {
          if (event.type === 'response.function_call_arguments.delta') argumentDeltas.push(event.delta);
          if (event.type === 'response.function_call_arguments.done') done = event.arguments;
        }
        expect(argumentDeltas.join('')).toBe(done);
        expect(JSON.parse(done ?? '')).toHaveProperty('city');
      });

      it('answers generateText and streamText of the Vercel AI SDK default (Responses) provider', async () => {
        const provider = createOpenAI({ baseURL: `${stack.url}/v1`, apiKey: 'unused' });
        const generated = await generateText({
          model: provider(path.model),
          prompt: 'Say hello',
          maxRetries: 0,
        });
        expect(generated.text.length).toBeGreaterThan(0);
        expect(generated.response.modelId).toBe(path.served);
        expect(generated.usage.outputTokens).toBe(8);
        expect(generated.response.headers?.['x-autotier-deployment']).toBe(path.deployment);
        const streamed = streamText({ model: provider(path.model), prompt: 'Say hello', maxRetries: 0 });
        let text = '';
        for await (const delta of streamed.textStream) text += delta;
        expect(text).toBe(generated.text);
        expect(await streamed.finishReason).toBe('stop');
        expect((await streamed.usage).outputTokens).toBe(8);
      });

      it('completes a tool round trip with the AI SDK (generateText runs the tool and asks again)', async () => {
        const provider = createOpenAI({ baseURL: `${stack.url}/v1`, apiKey: 'unused' });
        const cities: string[] = [];
        const result = await generateText({
          model: provider(path.model),
          prompt: 'What is the weather in Paris?',
          maxRetries: 0,
          stopWhen: stepCountIs(3),
          tools: {
            get_weather: tool({
              description: 'The weather in a city',
              inputSchema: z.object({ city: z.string() }),
              execute: ({ city }) => {
                cities.push(city);
                return Promise.resolve({ celsius: 21 });
              },
            }),
          },
        });
        expect(cities).toHaveLength(1);
        expect(result.steps).toHaveLength(2);
        expect(result.steps[0]?.finishReason).toBe('tool-calls');
        expect(result.text.length).toBeGreaterThan(0);
        // streamed the same way
        const streamed = streamText({
          model: provider(path.model),
          prompt: 'What is the weather in Paris?',
          maxRetries: 0,
          stopWhen: stepCountIs(3),
          tools: {
            get_weather: tool({
              inputSchema: z.object({ city: z.string() }),
              execute: () => Promise.resolve({ celsius: 21 }),
            }),
          },
        });
        let text = '';
        for await (const delta of streamed.textStream) text += delta;
        expect((await streamed.steps).length).toBe(2);
        expect(text.length).toBeGreaterThan(0);
      });
    });
  }

  it('routes model auto through the classifier, as chat does (AI SDK default provider, openai SDK)', async () => {
    const provider = createOpenAI({ baseURL: `${stack.url}/v1`, apiKey: 'unused' });
    const generated = await generateText({ model: provider('auto'), prompt: 'hi', maxRetries: 0 });
    expect(generated.text.length).toBeGreaterThan(0);
    expect(generated.response.headers?.['x-autotier-classifier']).toBeDefined();
    expect(generated.response.headers?.['x-autotier-tier']).toBe('SIMPLE');
    const { response } = await client.responses.create({ model: 'auto', input: 'hi' }).withResponse();
    expect(response.headers.get('x-autotier-reason')).toMatch(/SIMPLE/);
  });

  it('ends a stream that breaks after its first token with error and response.failed (both paths)', async () => {
    for (const [deployment, model] of [
      ['native-broken', 'tier:EXPERT'],
      ['chat-broken', 'tier:COMPLEX'],
    ] as const) {
      stack.sim(deployment).setFault({ name: 'cut_mid_stream', params: { after: 3 } });
      try {
        const stream = await client.responses.create({ model, input: 'Say hello', stream: true });
        const events: ResponseStreamEvent[] = [];
        for await (const event of stream) events.push(event);
        const [error, failed] = events.slice(-2);
        expect(error?.type, deployment).toBe('error');
        expect(error?.type === 'error' ? error.code : undefined).toBe('upstream_stream_cut');
        expect(failed?.type).toBe('response.failed');
        expect(failed?.type === 'response.failed' ? failed.response.error?.code : undefined).toBe(
          'upstream_stream_cut',
        );
        expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
        expect(events.some((event) => event.type === 'response.completed')).toBe(false);
        // the AI SDK sees the failure, not a short answer
        const provider = createOpenAI({ baseURL: `${stack.url}/v1`, apiKey: 'unused' });
        const errors: unknown[] = [];
        const streamed = streamText({
          model: provider(model),
          prompt: 'Say hello',
          maxRetries: 0,
          onError: ({ error: thrown }) => {
            errors.push(thrown);
          },
        });
        const parts: string[] = [];
        for await (const part of streamed.fullStream)
          parts.push(part.type === 'finish' ? `finish:${part.finishReason}` : part.type);
        expect(parts, deployment).toContain('error');
        expect(JSON.stringify(errors), deployment).toContain('upstream_stream_cut');
        expect(parts.at(-1)).toBe('finish:error');
      } finally {
        stack.sim(deployment).setFault(null);
      }
    }
  });

  it('fails over before the first token like chat: a deployment answering 503 is retried, then it is a 503 to the client', async () => {
    stack.sim('native-broken').setFault({ name: 'error_503' });
    try {
      const response = await fetch(`${stack.url}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tier:EXPERT', input: 'Say hello' }),
      });
      expect(response.status).toBe(503);
      const body = (await response.json()) as { error: { code: string } };
      expect(body.error.code).toBe('all_deployments_failed');
    } finally {
      stack.sim('native-broken').setFault(null);
    }
  });

  it('refuses what it does not support with a 400 naming the param, before any upstream call', async () => {
    const cases: { body: Record<string, unknown>; param: string }[] = [
      { body: { previous_response_id: 'resp_123' }, param: 'previous_response_id' },
      { body: { background: true }, param: 'background' },
      { body: { conversation: 'conv_1' }, param: 'conversation' },
      { body: { include: ['message.output_text.logprobs'] }, param: 'include' },
      { body: { truncation: 'auto' }, param: 'truncation' },
      { body: { tools: [{ type: 'web_search' }] }, param: 'tools[0].type' },
      { body: { tools: [WEATHER_TOOL], tool_choice: { type: 'file_search' } }, param: 'tool_choice' },
      { body: { input: [{ type: 'item_reference', id: 'msg_1' }] }, param: 'input[0].id' },
      { body: { input: [{ type: 'web_search_call', id: 'ws_1' }] }, param: 'input[0].type' },
      {
        body: { input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }] },
        param: 'input[0].content[0].type',
      },
      {
        body: { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] },
        param: 'input[0].content[0].image_url',
      },
      { body: { input: [{ role: 'robot', content: 'hi' }] }, param: 'input[0].role' },
      { body: { input: 42 }, param: 'input' },
      { body: { text: { format: { type: 'json_schema', name: 'x' } } }, param: 'text.format.schema' },
      { body: { max_output_tokens: -1 }, param: 'max_output_tokens' },
    ];
    const before = JSON.stringify(served());
    for (const { body, param } of cases) {
      const response = await fetch(`${stack.url}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tier:SIMPLE', input: 'hi', ...body }),
      });
      const answer = (await response.json()) as { error: { type: string; param: string; message: string } };
      expect(response.status, param).toBe(400);
      expect(answer.error.type).toBe('invalid_request_error');
      expect(answer.error.param, JSON.stringify(body)).toBe(param);
    }
    expect(JSON.stringify(served())).toBe(before);
  });

  it('answers too many input items with a 400 naming input, like chat bounds its messages', async () => {
    const input = Array.from({ length: 10_001 }, () => ({ role: 'user', content: 'x' }));
    const response = await fetch(`${stack.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tier:SIMPLE', input }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe('input');
  });
});

describe('POST /v1/responses under API keys', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      backends: [{ id: 'chat', models: ['chat-model'], responses: false, answerTokens: 4 }],
      table: (urls) => {
        const tier = { group: ['chat'], timeouts: FAST_TIMEOUTS };
        return {
          deployments: [
            { id: 'chat', model: 'chat-model', base_url: urls['chat'] ?? '', context_window: 32768 },
          ],
          tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
          api_keys: [{ name: 'app', sha256: hashKey('sk-app'), rpm: 2 }],
        };
      },
    });
  });
  afterAll(() => stack.close());

  it('answers 401 without a valid key, and 429 past the key RPM, as chat does', async () => {
    const anonymous = new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: 'sk-wrong', maxRetries: 0 });
    await expect(anonymous.responses.create({ model: 'tier:SIMPLE', input: 'hi' })).rejects.toMatchObject({
      status: 401,
    });
    const keyed = new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: 'sk-app', maxRetries: 0 });
    expect((await keyed.responses.create({ model: 'tier:SIMPLE', input: 'hi' })).status).toBe('completed');
    expect((await keyed.responses.create({ model: 'tier:SIMPLE', input: 'hi' })).status).toBe('completed');
    await expect(keyed.responses.create({ model: 'tier:SIMPLE', input: 'hi' })).rejects.toMatchObject({
      status: 429,
    });
  });
});

describe('POST /v1/responses with a thinking model', () => {
  let stack: Stack;
  let client: OpenAI;
  beforeAll(async () => {
    stack = await startStack({
      backends: [
        // vLLM with a reasoning parser (reasoning_content), and one without (inline <think> in content)
        { id: 'think-native', models: ['qwen3'], responses: true, answerTokens: 8 },
        { id: 'think-chat', models: ['qwen3'], responses: false, answerTokens: 8, reasoning: 'inline' },
      ],
      table: (urls) => {
        const tier = (id: string) => ({
          group: [id],
          timeouts: { ...FAST_TIMEOUTS, ttft_ms: 3000, idle_ms: 3000, total_ms: 10_000 },
          max_tokens: { cap: 512, default: 256 },
          extra_body: { chat_template_kwargs: { enable_thinking: true } },
        });
        const deployment = (id: string, responses: boolean) => ({
          id,
          model: 'qwen3',
          base_url: urls[id] ?? '',
          context_window: 32768,
          responses,
        });
        return {
          deployments: [deployment('think-native', true), deployment('think-chat', false)],
          tiers: {
            SIMPLE: tier('think-native'),
            MODERATE: tier('think-chat'),
            COMPLEX: tier('think-chat'),
            EXPERT: tier('think-chat'),
          },
        };
      },
    });
    client = new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  afterAll(() => stack.close());

  for (const model of ['tier:SIMPLE', 'tier:MODERATE']) {
    it(`answers with a reasoning item before the message (${model})`, async () => {
      const final = await client.responses.stream({ model, input: 'Why is the sky blue?' }).finalResponse();
      const [reasoning, message] = final.output;
      expect(reasoning?.type).toBe('reasoning');
      const thought = reasoning?.type === 'reasoning' ? reasoning.content?.[0] : undefined;
      expect(thought?.text.length).toBeGreaterThan(0);
      expect(thought?.text).not.toContain('<think>');
      expect(message?.type).toBe('message');
      expect(final.output_text.length).toBeGreaterThan(0);
      expect(final.output_text).not.toContain('think>');
      const buffered = await client.responses.create({ model, input: 'Why is the sky blue?' });
      expect(buffered.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
      expect(buffered.output_text).toBe(final.output_text);
    });

    it(`runs an AI SDK tool loop whose second request references the reasoning item (${model})`, async () => {
      const provider = createOpenAI({ baseURL: `${stack.url}/v1`, apiKey: 'unused' });
      const result = await generateText({
        model: provider(model),
        prompt: 'What is the weather in Paris?',
        maxRetries: 0,
        stopWhen: stepCountIs(3),
        tools: {
          get_weather: tool({
            inputSchema: z.object({ city: z.string() }),
            execute: () => Promise.resolve({ celsius: 21 }),
          }),
        },
      });
      // with store on (the SDK's default) the reasoning of step 1 comes back as an item_reference
      const secondInput = JSON.stringify((result.steps[1]?.request.body as { input?: unknown }).input);
      expect(secondInput).toContain('"type":"item_reference","id":"rs_');
      expect(result.steps).toHaveLength(2);
      expect(result.text.length).toBeGreaterThan(0);
    });
  }
});
