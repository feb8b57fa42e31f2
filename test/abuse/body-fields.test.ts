import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashKey } from '../../src/policy/api-keys.js';
import { startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';
import { FAST_TIMEOUTS, HELLO, simpleTable, startStack, type Stack } from '../helpers/start-stack.js';

/**
 * Body fields are an allow-list per endpoint: OpenAI's fields and vLLM's own-sampling extras reach the
 * deployment; vLLM's scheduler, transport and server-control fields are the operator's (set in the
 * table's extra_body) and a client sending one gets a 400 naming it, as does a field no endpoint knows.
 * Every deployment sits behind a recording proxy, so "never reached the deployment" is observed.
 */
const KEY = 'sk-fields';
const BGE = 'BAAI/bge-m3';

interface ErrorBody {
  error?: { code: string; param: string | null; message: string; type: string };
}

const ENDPOINTS = {
  chat: { path: '/v1/chat/completions', base: { model: 'tier:SIMPLE', messages: HELLO } },
  completions: { path: '/v1/completions', base: { model: 'auto', prompt: 'def add(a, b):' } },
  responses: { path: '/v1/responses', base: { model: 'tier:SIMPLE', input: 'hello there' } },
  embeddings: { path: '/v1/embeddings', base: { model: BGE, input: 'hello there' } },
  route: { path: '/v1/route', base: { model: 'auto', messages: HELLO } },
} as const;
type EndpointName = keyof typeof ENDPOINTS;

/** The scheduler, transport and server-control fields, each with a value a hostile client would send. */
const OPERATOR_FIELDS: Record<string, unknown> = {
  priority: -100_000,
  kv_transfer_params: { do_remote_prefill: true, remote_engine_id: 'other-tenant' },
  request_id: 'chatcmpl-other-tenant-0001',
  chat_template: '{{ messages }}',
  ignore_eos: true,
  min_tokens: 4000,
  cache_salt: 'shared',
  vllm_xargs: { anything: 1 },
  logits_processors: ['os.system'],
  mm_processor_kwargs: { max_pixels: 1e9 },
  add_special_tokens: true,
  truncate_prompt_tokens: 1,
  return_tokens_as_token_ids: true,
  prompt_logprobs: 20,
  use_beam_search: true,
  documents: [{ title: 'hidden', text: 'x'.repeat(1000) }],
};

describe('body fields are an allow-list per endpoint', () => {
  let stack: Stack;
  let chatProxy: RecordingProxy;
  let embedProxy: RecordingProxy;
  const origins: Record<string, string> = {};
  const send = async (name: EndpointName, extra: Record<string, unknown>) => {
    const response = await fetch(`${stack.url}${ENDPOINTS[name].path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ ...ENDPOINTS[name].base, ...extra }),
    });
    const text = await response.text();
    const error = text.startsWith('{') ? (JSON.parse(text) as ErrorBody).error : undefined;
    return { status: response.status, text, error };
  };
  const forwarded = (): Record<string, unknown>[] => [...chatProxy.bodies, ...embedProxy.bodies];

  beforeAll(async () => {
    chatProxy = await startRecordingProxy(() => origins['chat'] ?? '');
    embedProxy = await startRecordingProxy(() => origins['bge'] ?? '');
    stack = await startStack({
      backends: [
        { id: 'chat', models: ['sim-model'] },
        { id: 'bge', models: [BGE], embedding: { dimensions: 8 }, contextWindow: 8192 },
      ],
      table: (urls) => {
        Object.assign(origins, urls);
        const base = simpleTable({ urls: { chat: `${chatProxy.url}/v1` }, group: ['chat'] });
        const tier = { ...base.tiers.SIMPLE, extra_body: { priority: 7 } };
        return {
          ...base,
          deployments: [
            ...(base.deployments ?? []),
            {
              id: 'bge',
              kind: 'embedding',
              model: BGE,
              base_url: `${embedProxy.url}/v1`,
              context_window: 8192,
            },
          ],
          tiers: { ...base.tiers, SIMPLE: tier },
          autocomplete: { group: ['chat'], timeouts: FAST_TIMEOUTS, max_tokens: { cap: 64, default: 16 } },
          embeddings: { group: ['bge'], timeouts: FAST_TIMEOUTS, extra_body: { priority: 3 } },
          api_keys: [{ name: 'tenant', sha256: hashKey(KEY) }],
        };
      },
    });
  });
  afterAll(async () => {
    await stack.close();
    await chatProxy.close();
    await embedProxy.close();
  });
  beforeEach(() => {
    chatProxy.bodies.length = 0;
    embedProxy.bodies.length = 0;
  });

  for (const name of Object.keys(ENDPOINTS) as EndpointName[])
    it(`refuses every scheduler, transport and server-control field on ${ENDPOINTS[name].path} with a 400 naming it`, async () => {
      for (const [field, value] of Object.entries(OPERATOR_FIELDS)) {
        const answer = await send(name, { [field]: value });
        expect(answer.status, `${field}: ${answer.text}`).toBe(400);
        expect(answer.error?.param).toBe(field);
        expect(answer.error?.type).toBe('invalid_request_error');
        expect(answer.error?.message).toContain('operator');
      }
      expect(forwarded()).toEqual([]);
    });

  it('refuses a field no endpoint knows, and one of another endpoint, naming it', async () => {
    for (const name of Object.keys(ENDPOINTS) as EndpointName[]) {
      for (const field of ['Priority', 'x_custom', 'max_new_tokens', '__proto__', 'kv transfer']) {
        const body = `{${JSON.stringify(field)}:1,${JSON.stringify(ENDPOINTS[name].base).slice(1)}`;
        const response = await fetch(`${stack.url}${ENDPOINTS[name].path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
          body,
        });
        const error = ((await response.json()) as ErrorBody).error;
        expect(response.status, `${name} ${field}`).toBe(400);
        expect(error?.param).toBe(field);
      }
    }
    for (const name of ['chat', 'responses', 'route'] as const) {
      const answer = await send(name, { best_of: 8 });
      expect(answer.status).toBe(400);
      expect(answer.error?.param).toBe('best_of');
      expect(answer.error?.message).toContain('/v1/completions');
    }
    const prompt = await send('embeddings', { top_k: 5 });
    expect(prompt.error?.param).toBe('top_k');
    expect(forwarded()).toEqual([]);
  });

  it('names a huge unknown field by its first characters only', async () => {
    const answer = await send('chat', { ['f'.repeat(100_000)]: 1 });
    expect(answer.status).toBe(400);
    expect(answer.text.length).toBeLessThan(2000);
    expect(answer.error?.param).toBe(`${'f'.repeat(64)}...`);
  });

  it('refuses a chat template smuggled through chat_template_kwargs', async () => {
    const answer = await send('chat', {
      chat_template_kwargs: { enable_thinking: true, chat_template: 'x' },
    });
    expect(answer.status).toBe(400);
    expect(answer.error?.param).toBe('chat_template_kwargs.chat_template');
    expect(forwarded()).toEqual([]);
  });

  it('passes the fields IDE plugins and SDKs send, and vLLM sampling extras, to the deployment', async () => {
    const chat = await send('chat', {
      stream: true,
      stream_options: { include_usage: true },
      user: 'u1',
      metadata: { app: 'ide' },
      store: false,
      parallel_tool_calls: true,
      max_completion_tokens: 32,
      prompt_cache_key: 'session-1',
      safety_identifier: 'h1',
      reasoning_effort: 'low',
      top_k: 20,
      min_p: 0.05,
      repetition_penalty: 1.1,
      stop_token_ids: [2],
      chat_template_kwargs: { enable_thinking: false },
    });
    expect(chat.status, chat.text).toBe(200);
    expect(chatProxy.bodies.at(-1)).toMatchObject({
      user: 'u1',
      prompt_cache_key: 'session-1',
      top_k: 20,
      min_p: 0.05,
      chat_template_kwargs: { enable_thinking: false },
    });
    const completion = await send('completions', { best_of: 2, n: 1, echo: false, suffix: '', top_k: 5 });
    expect(completion.status, completion.text).toBe(200);
    expect(chatProxy.bodies.at(-1)).toMatchObject({ best_of: 2, top_k: 5 });
    const responses = await send('responses', { store: false, top_k: 3, metadata: { a: 'b' } });
    expect(responses.status, responses.text).toBe(200);
    expect(chatProxy.bodies.at(-1)).toMatchObject({ top_k: 3 });
    const embeddings = await send('embeddings', { encoding_format: 'float', user: 'u1', normalize: true });
    expect(embeddings.status, embeddings.text).toBe(200);
  });

  it("sends the operator's extra_body values, never a client's", async () => {
    expect((await send('chat', {})).status).toBe(200);
    expect(chatProxy.bodies.at(-1)).toMatchObject({ priority: 7 });
    expect((await send('embeddings', {})).status).toBe(200);
    expect(embedProxy.bodies.at(-1)).toMatchObject({ priority: 3 });
    expect((await send('chat', { priority: 0 })).status).toBe(400);
    expect(forwarded()).toHaveLength(2);
  });

  it("passes a field the table's client_fields names, and only that one", async () => {
    const loaded = stack.loadTable({
      ...simpleTable({ urls: { chat: `${chatProxy.url}/v1` }, group: ['chat'] }),
      client_fields: ['x_trace_tag'],
      api_keys: [{ name: 'tenant', sha256: hashKey(KEY) }],
    });
    stack.service.setTable(loaded);
    const answer = await send('chat', { x_trace_tag: 'blue' });
    expect(answer.status, answer.text).toBe(200);
    expect(chatProxy.bodies.at(-1)).toMatchObject({ x_trace_tag: 'blue' });
    expect((await send('chat', { x_other: 1 })).error?.param).toBe('x_other');
  });
});
