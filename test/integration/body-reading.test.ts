import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELLO, simpleTable, startStack, type Stack } from '../helpers/start-stack.js';

/** The routed endpoints read bodies on plain node:http; these cases must answer as express would. */
describe('reading request bodies on the routed endpoints', () => {
  let stack: Stack;
  const body = JSON.stringify({ model: 'tier:SIMPLE', messages: HELLO });
  const post = (init: { headers?: Record<string, string>; body: string | Buffer; path?: string }) =>
    fetch(`${stack.url}${init.path ?? '/v1/chat/completions'}`, {
      method: 'POST',
      headers: init.headers ?? { 'content-type': 'application/json' },
      body: init.body as BodyInit,
    });
  const errorOf = async (response: Response) =>
    ((await response.json()) as { error: { code: string; param: string | null; message: string } }).error;
  beforeAll(async () => {
    stack = await startStack({
      backends: [{ id: 'a', models: ['sim-model'] }],
      table: (urls) => simpleTable({ urls, group: ['a'] }),
    });
  });
  afterAll(() => stack.close());

  it('accepts a JSON body with a charset, a +json type and a query string', async () => {
    const charset = await post({ headers: { 'content-type': 'application/json; charset=utf-8' }, body });
    expect(charset.status).toBe(200);
    const vendor = await post({ headers: { 'content-type': 'application/vnd.api+json' }, body });
    expect(vendor.status).toBe(200);
    const query = await post({ body, path: '/v1/chat/completions?trace=1' });
    expect(query.status).toBe(200);
  });

  it('reads a gzip-compressed body through the express path', async () => {
    const response = await post({
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(body),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-autotier-tier')).toBe('SIMPLE');
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

  it('answers 400 naming the body for malformed JSON and for a JSON value that is not an object', async () => {
    const malformed = await post({ body: '{"model": "auto", ' });
    expect(malformed.status).toBe(400);
    expect(await errorOf(malformed)).toMatchObject({ code: 'invalid_request', param: 'body' });
    const scalar = await post({ body: '"hello"' });
    expect(scalar.status).toBe(400);
    expect((await errorOf(scalar)).param).toBe('body');
  });

  it('answers 400 for a body without a JSON content type, as for a missing body', async () => {
    const response = await post({ headers: { 'content-type': 'text/plain' }, body });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).code).toBe('invalid_request');
  });

  it('answers 400 for a body over the 20 MiB limit and keeps serving', async () => {
    const huge = JSON.stringify({
      model: 'tier:SIMPLE',
      messages: [{ role: 'user', content: 'x'.repeat(21 * 1024 * 1024) }],
    });
    const response = await post({ body: huge });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).message).toContain('larger than the configured limit');
    expect((await post({ body })).status).toBe(200);
  });

  it('echoes a plain x-request-id and replaces one that is not a plain token', async () => {
    const kept = await post({
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-42.a' },
      body,
    });
    expect(kept.headers.get('x-request-id')).toBe('req-42.a');
    const replaced = await post({
      headers: { 'content-type': 'application/json', 'x-request-id': 'bad id with spaces' },
      body,
    });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
