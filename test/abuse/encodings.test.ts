import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';
import { simpleTable, startStack, type Stack } from '../helpers/start-stack.js';

/**
 * Bodies are decoded strictly: bytes that are not UTF-8, whatever the content-encoding around them,
 * are 415 naming `body` and never reach a deployment; JSON escapes of lone surrogates (valid JSON
 * text, not Unicode) reach it as U+FFFD. The deployment sits behind a recording proxy.
 */
interface ErrorBody {
  error: { code: string; param: string | null; type: string; message: string };
}

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');

/** A chat body whose user content is `before`, the raw `bytes`, then `after`. */
function chatWith(bytes: Buffer, before = 'hello ', after = ' there'): Buffer {
  const head = Buffer.from(`{"model":"tier:SIMPLE","messages":[{"role":"user","content":"${before}`);
  return Buffer.concat([head, bytes, Buffer.from(`${after}"}]}`)]);
}

/** Byte sequences a strict UTF-8 decoder refuses, each named. */
const NOT_UTF8: Record<string, Buffer> = {
  'the reported bytes': hex('ff fe c3 28'),
  'a lone continuation byte': hex('80'),
  'a byte that never appears (FE)': hex('fe'),
  'an overlong slash (C0 AF)': hex('c0 af'),
  'an overlong slash in three bytes': hex('e0 80 af'),
  'an overlong slash in four bytes': hex('f0 80 80 af'),
  'an overlong NUL (C0 80)': hex('c0 80'),
  'an encoded high surrogate (ED A0 80)': hex('ed a0 80'),
  'an encoded surrogate pair (CESU-8)': hex('ed a0 bd ed b8 80'),
  'a code point past U+10FFFF': hex('f4 90 80 80'),
  'a truncated three-byte sequence': hex('e4 b8'),
  'a five-byte form': hex('f8 88 80 80 80'),
  'Latin-1 text': Buffer.from('café', 'latin1'),
};

describe('strict decoding of request bodies', () => {
  let stack: Stack;
  let proxy: RecordingProxy;
  const origins: Record<string, string> = {};
  const post = async (
    body: Buffer,
    options: { path?: string; encoding?: string } = {},
  ): Promise<{ status: number; text: string }> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.encoding !== undefined) headers['content-encoding'] = options.encoding;
    const response = await fetch(`${stack.url}${options.path ?? '/v1/chat/completions'}`, {
      method: 'POST',
      headers,
      body: body as BodyInit,
    });
    return { status: response.status, text: await response.text() };
  };
  const expect415 = (answer: { status: number; text: string }, what: string): void => {
    expect(answer.status, `${what}: ${answer.text.slice(0, 200)}`).toBe(415);
    const { error } = JSON.parse(answer.text) as ErrorBody;
    expect(error.code).toBe('unsupported_media_type');
    expect(error.type).toBe('invalid_request_error');
    expect(error.param).toBe('body');
    expect(error.message).toContain('UTF-8');
  };

  beforeAll(async () => {
    proxy = await startRecordingProxy(() => origins['a'] ?? '');
    stack = await startStack({
      backends: [{ id: 'a', models: ['sim-model'] }],
      table: (urls) => {
        Object.assign(origins, urls);
        return simpleTable({ urls: { a: `${proxy.url}/v1` }, group: ['a'] });
      },
    });
  });
  afterAll(async () => {
    await stack.close();
    await proxy.close();
  });
  beforeEach(() => {
    proxy.bodies.length = 0;
  });

  it('refuses every invalid UTF-8 sequence with 415 naming body, before any upstream call', async () => {
    for (const [name, bytes] of Object.entries(NOT_UTF8)) expect415(await post(chatWith(bytes)), name);
    expect(proxy.bodies).toEqual([]);
  });

  it('refuses invalid UTF-8 inside gzip, deflate and br bodies', async () => {
    const body = chatWith(hex('ff fe c3 28'));
    const compress = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };
    for (const [encoding, pack] of Object.entries(compress))
      expect415(await post(pack(body), { encoding }), encoding);
    expect(proxy.bodies).toEqual([]);
  });

  it('refuses invalid UTF-8 on every endpoint, in a field name too', async () => {
    const bad = hex('c3 28');
    const bodies: Record<string, Buffer> = {
      '/v1/completions': Buffer.concat([Buffer.from('{"model":"auto","prompt":"x'), bad, Buffer.from('"}')]),
      '/v1/responses': Buffer.concat([
        Buffer.from('{"model":"tier:SIMPLE","input":"'),
        bad,
        Buffer.from('"}'),
      ]),
      '/v1/embeddings': Buffer.concat([
        Buffer.from('{"model":"sim-model","input":"'),
        bad,
        Buffer.from('"}'),
      ]),
      '/v1/route': chatWith(bad),
      '/v1/chat/completions': Buffer.concat([Buffer.from('{"'), bad, Buffer.from('":1}')]),
    };
    for (const [path, body] of Object.entries(bodies)) expect415(await post(body, { path }), path);
    expect(proxy.bodies).toEqual([]);
  });

  it('refuses invalid UTF-8 past the first slice of a large body, and keeps a character split across slices', async () => {
    const filler = 'z'.repeat(300 * 1024);
    expect415(await post(chatWith(hex('ff'), filler)), 'a bad byte at 300 KiB');
    // a three-byte character straddling the decoder's 256 KiB slice boundary, in a field nobody counts
    const head = '{"model":"tier:SIMPLE","messages":[{"role":"user","content":"hi"}],"user":"';
    const user = `${'z'.repeat(256 * 1024 - head.length - 1)}${'中'.repeat(10)}`;
    const answer = await post(Buffer.from(`${head}${user}"}`));
    expect(answer.status, answer.text.slice(0, 200)).toBe(200);
    expect((proxy.bodies.at(-1) as { user: string }).user).toBe(user);
  });

  it('accepts valid multibyte text and one leading byte order mark', async () => {
    const text = Buffer.from('héllo 中文 😀 𝐀');
    expect((await post(chatWith(text))).status).toBe(200);
    const bom = Buffer.concat([hex('ef bb bf'), chatWith(text)]);
    expect((await post(bom)).status).toBe(200);
    expect((await post(gzipSync(bom), { encoding: 'gzip' })).status).toBe(200);
    const sent = proxy.bodies.at(-1) as { messages: { content: string }[] };
    expect(sent.messages.at(-1)?.content).toBe('hello héllo 中文 😀 𝐀 there');
    const twoMarks = Buffer.concat([hex('ef bb bf ef bb bf'), chatWith(text)]);
    const answer = await post(twoMarks);
    expect(answer.status).toBe(400);
    expect((JSON.parse(answer.text) as ErrorBody).error.param).toBe('body');
  });

  it('sends JSON escapes of lone surrogates upstream as U+FFFD and keeps escaped pairs', async () => {
    const escapes = Buffer.from('\\ud800 \\uDFFF \\ud83d\\ude00 \\uD83D');
    const answer = await post(chatWith(escapes));
    expect(answer.status, answer.text).toBe(200);
    const sent = proxy.bodies.at(-1) as { messages: { content: string }[] };
    expect(sent.messages.at(-1)?.content).toBe('hello \ufffd \ufffd 😀 \ufffd there');
    const route = await post(chatWith(Buffer.from('\\udc00'.repeat(5000))), { path: '/v1/route' });
    expect(route.status).toBeLessThan(500);
  });
});
