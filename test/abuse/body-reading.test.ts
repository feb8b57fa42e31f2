import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/endpoints/index.js';
import { HELLO, simpleTable, startStack, type Stack } from '../helpers/start-stack.js';

interface ErrorBody {
  error: { code: string; param: string | null; message: string; request_id: string };
}

/** Every endpoint that reads a JSON body. */
const ROUTED = ENDPOINTS.filter((endpoint) => endpoint.body !== 'none').map((endpoint) => endpoint.path);
const MIB = 1024 * 1024;

/** `depth` nested arrays around a number: deep enough, it overflows JSON.stringify's stack. */
const nested = (depth: number): string => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

/**
 * A gzip body of `members` concatenated members of 16 MiB of zeros each (gunzip reads them all):
 * 16 GiB when inflated from about 16 kB per member.
 */
function gzipBomb(members: number): Buffer {
  const member = gzipSync(Buffer.alloc(16 * MIB), { level: 9 });
  return Buffer.concat(Array.from({ length: members }, () => member));
}

describe('reading request bodies', () => {
  let stack: Stack;
  const body = JSON.stringify({ model: 'tier:SIMPLE', messages: HELLO });
  const completionBody = JSON.stringify({ model: 'tier:SIMPLE', prompt: 'def add(a, b):' });
  const post = (init: { headers?: Record<string, string>; body: string | Buffer; path?: string }) =>
    fetch(`${stack.url}${init.path ?? '/v1/chat/completions'}`, {
      method: 'POST',
      headers: init.headers ?? { 'content-type': 'application/json' },
      body: init.body as BodyInit,
    });
  const errorOf = async (response: Response) => ((await response.json()) as ErrorBody).error;
  beforeAll(async () => {
    stack = await startStack({
      backends: [{ id: 'a', models: ['sim-model'] }],
      table: (urls) => simpleTable({ urls, group: ['a'] }),
    });
  });
  afterAll(() => stack.close());

  it('accepts a JSON body with a charset, a +json type, a query string and no content-type at all', async () => {
    const charset = await post({ headers: { 'content-type': 'application/json; charset=UTF-8' }, body });
    expect(charset.status).toBe(200);
    const vendor = await post({ headers: { 'content-type': 'application/vnd.api+json' }, body });
    expect(vendor.status).toBe(200);
    const query = await post({ body, path: '/v1/chat/completions?trace=1' });
    expect(query.status).toBe(200);
    const untyped = await fetch(`${stack.url}/v1/chat/completions`, {
      method: 'POST',
      body: new Blob([body]),
    });
    expect(untyped.status).toBe(200);
  });

  it('reads gzip, deflate and br bodies', async () => {
    const encoded = { gzip: gzipSync(body), deflate: deflateSync(body), br: brotliCompressSync(body) };
    for (const [encoding, bytes] of Object.entries(encoded)) {
      const response = await post({
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: bytes,
      });
      expect(response.status, encoding).toBe(200);
      expect(response.headers.get('x-autotier-tier')).toBe('SIMPLE');
    }
  });

  it('keeps UTF-8 text intact when a multi-byte character is split across network chunks', async () => {
    const text = '안녕하세요, 한 문장으로 인사해 주세요. 你好，こんにちは';
    const bytes = Buffer.from(
      JSON.stringify({ model: 'tier:SIMPLE', messages: [{ role: 'user', content: text }] }),
    );
    const split = bytes.indexOf(Buffer.from('안')) + 1;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, split));
        controller.enqueue(bytes.subarray(split));
        controller.close();
      },
    });
    const response = await fetch(`${stack.url}/v1/route`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { prompt_tokens: number }).prompt_tokens).toBeGreaterThan(10);
  });

  it('answers 415 naming content-type for charset=latin1, on every endpoint that reads a body', async () => {
    for (const path of ROUTED) {
      const response = await post({
        path,
        headers: { 'content-type': 'application/json; charset=latin1' },
        body,
      });
      expect(response.status, path).toBe(415);
      const error = await errorOf(response);
      expect(error).toMatchObject({ code: 'unsupported_media_type', param: 'content-type' });
      expect(error.message).toContain('latin1');
    }
  });

  it('answers 415 naming content-encoding for content-encoding: foo', async () => {
    const response = await post({
      headers: { 'content-type': 'application/json', 'content-encoding': 'foo' },
      body,
    });
    expect(response.status).toBe(415);
    expect(await errorOf(response)).toMatchObject({
      code: 'unsupported_media_type',
      param: 'content-encoding',
    });
  });

  it('answers 415 naming content-type for valid JSON sent as text/plain or a form', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const response = await post({ headers: { 'content-type': type }, body });
      expect(response.status, type).toBe(415);
      const error = await errorOf(response);
      expect(error).toMatchObject({ code: 'unsupported_media_type', param: 'content-type' });
      expect(error.message).toContain('application/json');
    }
  });

  it('answers 400 naming the body for a body sent as gzip, deflate or br that is not', async () => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const response = await post({
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body,
      });
      expect(response.status, encoding).toBe(400);
      const error = await errorOf(response);
      expect(error).toMatchObject({ code: 'invalid_request', param: 'body' });
      expect(error.message).toContain(encoding);
    }
    const truncated = gzipSync(body).subarray(0, 20);
    const cut = await post({
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: truncated,
    });
    expect(cut.status).toBe(400);
  });

  it('stops inflating a gzip bomb at the limit and answers 413', async () => {
    const bomb = gzipBomb(1024);
    expect(bomb.length).toBeLessThan(20 * MIB);
    const response = await post({
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: bomb,
    });
    expect(response.status).toBe(413);
    expect(await errorOf(response)).toMatchObject({ code: 'body_too_large', param: 'body' });
    expect((await post({ body })).status).toBe(200);
  });

  it('answers 413 for a deflate or br body that inflates past the limit', async () => {
    const zeros = Buffer.alloc(21 * MIB);
    const encoded = {
      deflate: deflateSync(zeros, { level: 1 }),
      br: brotliCompressSync(zeros, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }),
    };
    for (const [encoding, bytes] of Object.entries(encoded)) {
      const response = await post({
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: bytes,
      });
      expect(response.status, encoding).toBe(413);
    }
  });

  it('answers 400 naming the body for malformed JSON, an empty body and a JSON value that is not an object', async () => {
    for (const text of ['{"model": "auto", ', '', '"hello"', '[1, 2]', 'null']) {
      const response = await post({ body: text });
      expect(response.status, text).toBe(400);
      expect(await errorOf(response)).toMatchObject({ code: 'invalid_request', param: 'body' });
    }
  });

  it('answers 413 for a body over the 20 MiB limit, declared or streamed, and keeps serving', async () => {
    const huge = JSON.stringify({
      model: 'tier:SIMPLE',
      messages: [{ role: 'user', content: 'x'.repeat(21 * MIB) }],
    });
    const declared = await post({ body: huge });
    expect(declared.status).toBe(413);
    const error = await errorOf(declared);
    expect(error).toMatchObject({ code: 'body_too_large', param: 'body' });
    expect(error.message).toContain(String(20 * MIB));
    const chunk = new Uint8Array(MIB).fill(0x78);
    let sent = 0;
    const streamed = await fetch(`${stack.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new ReadableStream<Uint8Array>({
        pull(controller) {
          sent += 1;
          if (sent > 21) controller.close();
          else controller.enqueue(chunk);
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await post({ body })).status).toBe(200);
  });

  it.each([50_000, 100_000])(
    'answers 400 naming the depth limit for JSON nested %i deep, anywhere in the body and on every endpoint that reads a body',
    async (depth) => {
      const bodies = [
        `{"model":"tier:SIMPLE","messages":[{"role":"user","content":"hi"}],"extra":${nested(depth)}}`,
        `{"model":"tier:SIMPLE","messages":${nested(depth)}}`,
        `{"model":"tier:SIMPLE","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${nested(depth)}}}]}`,
        `{"model":"tier:SIMPLE","prompt":"x","suffix":${nested(depth)}}`,
      ];
      for (const path of ROUTED)
        for (const text of bodies) {
          const response = await post({ path, body: text });
          expect(response.status, path).toBe(400);
          const error = await errorOf(response);
          expect(error).toMatchObject({ code: 'invalid_request', param: 'body' });
          expect(error.message).toContain('limit of 64 levels');
        }
    },
  );

  it('routes a request whose tool schema nests just under the depth limit', async () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 25; level += 1)
      schema = { type: 'object', properties: { [`level${level}`]: schema } };
    const response = await post({
      body: JSON.stringify({
        model: 'tier:SIMPLE',
        messages: HELLO,
        tools: [{ type: 'function', function: { name: 'deep', parameters: schema } }],
      }),
    });
    expect(response.status).toBe(200);
    expect((await post({ path: '/v1/completions', body: completionBody })).status).toBe(200);
  });

  it('answers 400 naming the field past the message, part, tool, prompt and model-length limits', async () => {
    const message = { role: 'user', content: 'hi' };
    const cases: { body: Record<string, unknown>; param: string; path?: string }[] = [
      { body: { model: 'auto', messages: Array.from({ length: 10_001 }, () => message) }, param: 'messages' },
      {
        body: {
          model: 'auto',
          messages: [
            { role: 'user', content: Array.from({ length: 1001 }, () => ({ type: 'text', text: 'a' })) },
          ],
        },
        param: 'messages[0].content',
      },
      {
        body: {
          model: 'auto',
          messages: [message],
          tools: Array.from({ length: 513 }, () => ({ type: 'function' })),
        },
        param: 'tools',
      },
      { body: { model: 'm'.repeat(257), messages: [message] }, param: 'model' },
      {
        body: { model: 'tier:SIMPLE', prompt: Array.from({ length: 2049 }, () => 'x') },
        param: 'prompt',
        path: '/v1/completions',
      },
    ];
    for (const { body: payload, param, path } of cases) {
      const response = await post({ path: path ?? '/v1/route', body: JSON.stringify(payload) });
      expect(response.status, param).toBe(400);
      const error = await errorOf(response);
      expect(error.param).toBe(param);
      expect(error.message).toContain('(the limit)');
    }
  });

  it("answers with autotier's own request id, and echoes the client's bounded to printable characters", async () => {
    const kept = await post({
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-42.a' },
      body,
    });
    expect(kept.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(kept.headers.get('x-client-request-id')).toBe('req-42.a');
    const stripped = await post({
      headers: { 'content-type': 'application/json', 'x-request-id': 'bad id with spaces' },
      body,
    });
    expect(stripped.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(stripped.headers.get('x-client-request-id')).toBe('badidwithspaces');
  });
});
