import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import type { CancelSignal } from '../shared/cancel-signal.js';
import { RouterError, toRouterError } from '../shared/errors.js';
import { yieldToEventLoop } from '../shared/yield-to-event-loop.js';
import { checkJsonContentType, toBodyEncoding, type BodyEncoding } from './body-format.js';
import { exceedsJsonDepth } from './json-depth.js';
import { toWellFormedJson } from './lone-surrogates.js';

export interface BodyLimits {
  /** Largest body in bytes, as sent and again after decompression. */
  bytes: number;
  /** Deepest nesting of arrays and objects (the body object itself is level 1). */
  depth: number;
}

/** `deflate` is the zlib format (RFC 9110), as curl and the browsers' CompressionStream send it. */
const DECOMPRESS = {
  gzip: promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
} as const;

/** A UTF-8 byte order mark, which RFC 8259 lets a parser ignore. */
function hasByteOrderMark(bytes: Buffer): boolean {
  return bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function tooLarge(limitBytes: number): RouterError {
  return new RouterError({
    code: 'BODY_TOO_LARGE',
    message: `the body is larger than the ${limitBytes}-byte limit`,
    param: 'body',
  });
}

function invalidBody(message: string): RouterError {
  return new RouterError({ code: 'INVALID_REQUEST', message, param: 'body' });
}

/**
 * The raw bytes, or 413 as soon as they pass the limit (by `content-length` before reading, else while
 * reading; node:http then reads and drops the rest, so the connection stays usable). Rejects with
 * CLIENT_CLOSED when the client disconnects first, with the reason of `stop` when that aborts first
 * (SHUTTING_DOWN: a drain's grace period ended), and stops reading.
 */
function readRawBody(request: IncomingMessage, limitBytes: number, stop?: CancelSignal): Promise<Buffer> {
  const declared = Number(header(request, 'content-length'));
  if (declared > limitBytes) return Promise.reject(tooLarge(limitBytes));
  if (stop?.aborted === true) return Promise.reject(toRouterError(stop.reason));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (outcome: () => void): void => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onCut);
      request.off('close', onCut);
      stop?.removeEventListener('abort', onStop);
      outcome();
    };
    function onStop(): void {
      finish(() => reject(toRouterError(stop?.reason)));
    }
    function onData(chunk: Buffer): void {
      size += chunk.length;
      if (size > limitBytes) finish(() => reject(tooLarge(limitBytes)));
      else chunks.push(chunk);
    }
    function onEnd(): void {
      finish(() => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)));
    }
    function onCut(error?: Error): void {
      finish(() =>
        reject(new RouterError({ code: 'CLIENT_CLOSED', message: 'the request body was cut', cause: error })),
      );
    }
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onCut);
    request.on('close', onCut);
    stop?.addEventListener('abort', onStop);
  });
}

/** Decompressed bytes; inflating stops at the limit (zlib's maxOutputLength), so a bomb costs the limit at most. */
async function decompress(raw: Buffer, encoding: BodyEncoding, limitBytes: number): Promise<Buffer> {
  if (encoding === 'identity') return raw;
  try {
    return await DECOMPRESS[encoding](raw, { maxOutputLength: limitBytes });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(limitBytes);
    throw invalidBody(`the body is not valid ${encoding} data: ${(error as Error).message}`);
  }
}

/**
 * Bytes decoded per turn of the event loop, and the body size above which decoding and parsing give
 * other requests a turn in between: UTF-8 decoding of CJK text costs about 6 ms per MB, JSON.parse
 * about 1.5 ms per MB, so a 1 MB body holds the loop for a few ms at a time, not for their sum.
 */
const DECODE_SLICE_BYTES = 256 * 1024;

function notUtf8(): RouterError {
  return new RouterError({
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message:
      'the body is not valid UTF-8 (after any content-encoding is undone): JSON bodies must be UTF-8, with no invalid, overlong or surrogate byte sequences',
    param: 'body',
  });
}

/**
 * UTF-8 text of bytes[start..], decoded a slice per turn when it is large. Strict (WHATWG's fatal
 * decoder): an invalid byte, an overlong form, an encoded surrogate (ED A0 80) or a truncated sequence
 * is 415 naming `body`, never a U+FFFD sent upstream in its place.
 */
async function decodeUtf8(bytes: Buffer, start: number): Promise<string> {
  // ignoreBOM: the reader has skipped one BOM already; a second is content, kept as U+FEFF
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const parts: string[] = [];
  try {
    if (bytes.length - start <= DECODE_SLICE_BYTES) return decoder.decode(bytes.subarray(start));
    for (let from = start; from < bytes.length; from += DECODE_SLICE_BYTES) {
      const end = Math.min(bytes.length, from + DECODE_SLICE_BYTES);
      parts.push(decoder.decode(bytes.subarray(from, end), { stream: end < bytes.length }));
      await yieldToEventLoop();
    }
  } catch (error) {
    if (error instanceof TypeError) throw notUtf8();
    throw error;
  }
  return parts.join('');
}

async function parseJsonObject(bytes: Buffer, depthLimit: number): Promise<Record<string, unknown>> {
  const start = hasByteOrderMark(bytes) ? 3 : 0;
  if (bytes.length === start) throw invalidBody('the body is empty: send a JSON object');
  if (exceedsJsonDepth(bytes, depthLimit))
    throw invalidBody(`the body nests arrays and objects deeper than the limit of ${depthLimit} levels`);
  const text = await decodeUtf8(bytes, start);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw invalidBody(`the body is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw invalidBody('the body must be a JSON object');
  if (bytes.length > DECODE_SLICE_BYTES) await yieldToEventLoop();
  return toWellFormedJson(parsed as Record<string, unknown>, text);
}

/**
 * A body something else has read already: an express body parser (express.json()) the operator
 * mounted before autotier's router. Its parsed result is not used: it skipped this reader's limits
 * and checks (decompressed size, depth, strict UTF-8, lone surrogates), and waiting for the consumed
 * stream would hang the request. 400, not 500: a retry cannot succeed, so the openai SDK's
 * retries on 5xx would only repeat it.
 */
function bodyAlreadyRead(): RouterError {
  return invalidBody(
    "the request body was read before autotier's router got it (a body parser such as express.json() is mounted before the router): autotier reads bodies itself, with its own limits; mount the router before any body parser or keep the parser off the router's path",
  );
}

/**
 * The one body reader: refuses a body another handler has read already (400 naming `body`, see
 * bodyAlreadyRead), checks content-type and content-encoding before reading (415), reads up to the
 * limit (413), decompresses with the limit on the decompressed bytes (413; corrupt data is 400), then
 * checks the nesting depth (400 naming `body`), decodes strictly as UTF-8 (415 naming `body`), parses
 * (400 naming `body`) and replaces lone-surrogate escapes with U+FFFD (lone-surrogates.ts). Reading
 * stops when `stop` (the request's signal) aborts, with its reason.
 */
export async function readJsonBody(
  request: IncomingMessage,
  limits: BodyLimits,
  stop?: CancelSignal,
): Promise<Record<string, unknown>> {
  if (request.readableDidRead || request.readableEnded) throw bodyAlreadyRead();
  checkJsonContentType(header(request, 'content-type'));
  const encoding = toBodyEncoding(header(request, 'content-encoding'));
  const raw = await readRawBody(request, limits.bytes, stop);
  return parseJsonObject(await decompress(raw, encoding, limits.bytes), limits.depth);
}
