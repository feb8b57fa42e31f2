import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSimulatedBackend } from './create-simulated-backend.js';
import { delay, postJson, readTimed, toSseChunks, toSsePayloads, waitFor } from './sim-test-client.js';
import type { SimBackend } from './types.js';

const MESSAGES = [{ role: 'user', content: 'hello' }];
const STREAM = { model: 'model-f', messages: MESSAGES, stream: true, max_tokens: 8 };
const PLAIN = { model: 'model-f', messages: MESSAGES, max_tokens: 8 };
let backend: SimBackend;

beforeEach(async () => {
  backend = await createSimulatedBackend({ id: 'sim-f', models: ['model-f'] });
});
afterEach(() => backend.close());

const send = (body: Record<string, unknown>, fault?: string, signal?: AbortSignal) =>
  postJson(`${backend.baseUrl}/chat/completions`, body, {
    headers: fault === undefined ? {} : { 'x-sim-fault': fault },
    ...(signal === undefined ? {} : { signal }),
  });

/** Content tokens seen in an SSE text (role, finish and usage chunks excluded). */
const contentCount = (text: string): number => (text.match(/"delta":\{"content":"[^"]+"\}/g) ?? []).length;

describe('error faults', () => {
  it('rate_limit answers 429 with Retry-After (1 s by default, or the seconds param)', async () => {
    const response = await send(PLAIN, 'rate_limit');
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(((await response.json()) as { error: { code: number } }).error.code).toBe(429);
    expect((await send(PLAIN, 'rate_limit;seconds=7')).headers.get('retry-after')).toBe('7');
  });

  it('rate_limit_no_retry_after answers 429 without Retry-After', async () => {
    const response = await send(PLAIN, 'rate_limit_no_retry_after');
    expect(response.status).toBe(429);
    expect(response.headers.has('retry-after')).toBe(false);
  });

  it('error_500_once fails only the first request until setFault resets it', async () => {
    backend.setFault({ name: 'error_500_once' });
    expect((await send(PLAIN)).status).toBe(500);
    expect((await send(PLAIN)).status).toBe(200);
    expect((await send(PLAIN)).status).toBe(200);
    backend.setFault({ name: 'error_500_once' });
    expect((await send(PLAIN)).status).toBe(500);
  });

  it('error_503 fails every request', async () => {
    backend.setFault({ name: 'error_503' });
    const statuses = [await send(PLAIN), await send(STREAM)].map((response) => response.status);
    expect(statuses).toEqual([503, 503]);
  });

  it('flapping alternates failing and succeeding phases of `period` requests', async () => {
    backend.setFault({ name: 'flapping', params: { period: 2 } });
    const statuses: number[] = [];
    for (let index = 0; index < 6; index += 1) statuses.push((await send(PLAIN)).status);
    expect(statuses).toEqual([503, 503, 200, 200, 503, 503]);
  });

  it('context_length answers vLLM 400 context-length errors in the current or legacy wording', async () => {
    const current = await send(PLAIN, 'context_length');
    expect(current.status).toBe(400);
    const message = ((await current.json()) as { error: { message: string } }).error.message;
    expect(message).toMatch(
      /^'max_tokens' or 'max_completion_tokens' is too large: 8\. This model's maximum context length is 32768 tokens/,
    );
    const legacy = await send(PLAIN, 'context_length;wording=legacy');
    expect(((await legacy.json()) as { error: { message: string } }).error.message).toBe(
      "This model's maximum context length is 32768 tokens. However, you requested 14 tokens (6 in the messages, 8 in the completion). Please reduce the length of the messages or completion.",
    );
  });

  it('bad_request answers 400 that is not a context-length error', async () => {
    const response = await send(PLAIN, 'bad_request');
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { message: string; type: string; param: string } };
    expect(error.message).not.toContain('context length');
    expect(error).toMatchObject({ type: 'BadRequestError', param: 'temperature' });
  });
});

describe('connection faults', () => {
  it('reset_before_headers drops the connection without a byte, and is still counted', async () => {
    await expect(send(PLAIN, 'reset_before_headers')).rejects.toThrow();
    expect(backend.stats()).toMatchObject({
      requests: 1,
      chatRequests: 1,
      byFault: { reset_before_headers: 1 },
    });
  });

  it('no_response keeps the request in flight until the client aborts', async () => {
    const controller = new AbortController();
    const pending = send(PLAIN, 'no_response', controller.signal);
    expect(await waitFor(() => backend.stats().inFlight === 1)).toBe(true);
    await delay(100);
    expect(backend.stats().inFlight).toBe(1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    expect(await waitFor(() => backend.stats().inFlight === 0)).toBe(true);
  });

  it('headers_then_nothing sends 200 SSE headers and then no byte', async () => {
    const controller = new AbortController();
    const response = await send(STREAM, 'headers_then_nothing', controller.signal);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reading = readTimed(response);
    await delay(150);
    controller.abort();
    const { pieces } = await reading;
    expect(pieces).toEqual([]);
  });

  it('headers_then_nothing on a non-stream request sends headers and no body', async () => {
    const controller = new AbortController();
    const response = await send(PLAIN, 'headers_then_nothing', controller.signal);
    expect(response.status).toBe(200);
    const reading = readTimed(response);
    await delay(100);
    controller.abort();
    expect((await reading).pieces).toEqual([]);
  });
});

describe('stream faults', () => {
  it('slow_first_token sends the role chunk at once and content after `ms`', async () => {
    const response = await send(STREAM, 'slow_first_token;ms=300');
    const { pieces } = await readTimed(response);
    expect(pieces[0]?.text).toContain('"role":"assistant"');
    expect(pieces[0]?.at).toBeLessThan(200);
    expect(pieces.find((piece) => piece.text.includes('"content":"Answer"'))?.at).toBeGreaterThanOrEqual(250);
  });

  it('cut_mid_stream delivers `after` content chunks and then breaks the connection', async () => {
    const response = await send(STREAM, 'cut_mid_stream;after=2');
    const { pieces, error } = await readTimed(response);
    const text = pieces.map((piece) => piece.text).join('');
    expect(error).toBeDefined();
    expect(contentCount(text)).toBe(2);
    expect(text).not.toContain('finish_reason":"');
    expect(text).not.toContain('[DONE]');
  });

  it('cut_mid_stream on a non-stream request sends part of the body then breaks', async () => {
    const response = await send(PLAIN, 'cut_mid_stream');
    await expect(response.text()).rejects.toThrow();
  });

  it('stall_mid_stream delivers `after` chunks then keeps the socket open and silent', async () => {
    const controller = new AbortController();
    const response = await send(STREAM, 'stall_mid_stream;after=3', controller.signal);
    const reading = readTimed(response);
    await delay(200);
    expect(backend.stats().inFlight).toBe(1);
    controller.abort();
    const text = (await reading).pieces.map((piece) => piece.text).join('');
    expect(contentCount(text)).toBe(3);
    expect(text).not.toContain('[DONE]');
    expect(await waitFor(() => backend.stats().inFlight === 0)).toBe(true);
  });

  it('malformed_chunk sends broken JSON after `after` chunks and ends without [DONE]', async () => {
    const text = await (await send(STREAM, 'malformed_chunk;after=1')).text();
    const payloads = toSsePayloads(text);
    expect(payloads.at(-1)).toBe('{"choices": [ {broken');
    expect(contentCount(text)).toBe(1);
    expect(text).not.toContain('[DONE]');
  });

  it('malformed_chunk with then=continue goes on to finish and [DONE]', async () => {
    const text = await (await send(STREAM, 'malformed_chunk;after=1;then=continue')).text();
    expect(text).toContain('data: {"choices": [ {broken\n\n');
    expect(contentCount(text)).toBe(8);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('no_done sends the finish chunk but no [DONE]', async () => {
    const text = await (await send({ ...STREAM, stream_options: { include_usage: true } }, 'no_done')).text();
    const chunks = toSseChunks(text);
    expect(
      chunks.some(
        (chunk) => (chunk['choices'] as { finish_reason?: string }[])[0]?.finish_reason === 'length',
      ),
    ).toBe(true);
    expect(chunks.at(-1)?.['usage']).toBeDefined();
    expect(text).not.toContain('[DONE]');
  });

  it('empty_chunks sends empty-content chunks between the role chunk and real content', async () => {
    const chunks = toSseChunks(await (await send(STREAM, 'empty_chunks')).text());
    const deltas = chunks.map((chunk) => (chunk['choices'] as { delta: Record<string, string> }[])[0]?.delta);
    expect(deltas[0]).toEqual({ role: 'assistant', content: '' });
    expect(deltas.slice(1, 4)).toEqual([{ content: '' }, { content: '' }, { content: '' }]);
    expect(deltas[4]).toEqual({ content: 'Answer' });
  });
});

describe('fault selection', () => {
  it('lets the x-sim-fault header beat the backend-wide fault', async () => {
    backend.setFault({ name: 'error_503' });
    expect((await send(PLAIN, 'rate_limit')).status).toBe(429);
    expect(backend.stats().byFault).toEqual({ rate_limit: 1 });
  });

  it('selects a fault by model suffix and answers with the bare served name', async () => {
    expect((await send({ ...PLAIN, model: 'model-f@error_503' })).status).toBe(503);
    const text = await (await send({ ...STREAM, model: 'model-f@no_done' })).text();
    expect(text).not.toContain('[DONE]');
    expect(toSseChunks(text)[0]?.['model']).toBe('model-f');
  });

  it('lets the header beat the model suffix', async () => {
    expect((await send({ ...PLAIN, model: 'model-f@error_503' }, 'rate_limit')).status).toBe(429);
  });

  it('rejects an unknown x-sim-fault with 400', async () => {
    const response = await send(PLAIN, 'explode');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('explode');
  });

  it('counts every request, faulted or not, by fault name', async () => {
    await send(PLAIN, 'error_503');
    await send(PLAIN, 'error_503');
    await send(PLAIN);
    await send(STREAM, 'no_done').then((response) => response.text());
    expect(backend.stats()).toMatchObject({
      requests: 4,
      chatRequests: 4,
      byFault: { error_503: 2, no_done: 1 },
    });
  });
});
