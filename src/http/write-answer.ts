import type { ServerResponse } from 'node:http';
import type { Answer } from '../endpoints/endpoint.js';
import type { GatewayResponse } from '../gateway/gateway.js';
import type { CancelSignal } from '../shared/cancel-signal.js';
import { RouterError } from '../shared/errors.js';

/**
 * How long a client may take none of an answer before it is cut, ms, when the answer names no limit
 * (routed answers carry their tier's idle_ms). @default 10000, the default idle_ms
 */
const DEFAULT_STALL_MS = 10_000;
/**
 * Longest piece of a JSON or raw body written at once, characters or bytes (64 Ki): a longer body goes
 * out in pieces, each after the socket drained, so a client that stops reading is seen and cut.
 */
const WRITE_PIECE = 64 * 1024;

export interface WriteOptions {
  /** The request's signal: aborted when the client went away or a drain stopped the request. */
  signal: CancelSignal;
  /**
   * Stops the request with `reason` (the upstream call is aborted with it) when the client took none of
   * the answer for its stall limit; the response is destroyed after.
   */
  stop: (reason: RouterError) => void;
}

type JsonAnswer = { status: number; headers: Record<string, string>; body: unknown };

/** Writes a (short) JSON answer whole. */
export function writeJson(response: ServerResponse, answer: JsonAnswer): void {
  response.end(writeJsonHead(response, answer));
}

/** Writes the head of a JSON answer; returns its body text. */
function writeJsonHead(response: ServerResponse, answer: JsonAnswer): string {
  const text = JSON.stringify(answer.body);
  // Object.assign, not `{ ...headers, more }`: V8 in Node 20 tenures objects made by a leading
  // spread followed by more properties, so one per request costs every young-generation GC time.
  response.writeHead(
    answer.status,
    Object.assign({}, answer.headers, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    }),
  );
  return text;
}

/** Resolves when the socket drained or closed or the request was stopped; 'stalled' when `stallMs` passed first. */
function drained(
  response: ServerResponse,
  input: { signal: CancelSignal; stallMs: number; event: 'drain' | 'finish' },
): Promise<'drained' | 'stalled'> {
  const { signal } = input;
  return new Promise((resolve) => {
    const done = (outcome: 'drained' | 'stalled'): void => {
      clearTimeout(timer);
      response.off(input.event, onDrain);
      response.off('close', onDrain);
      signal.removeEventListener('abort', onDrain);
      resolve(outcome);
    };
    const onDrain = (): void => done('drained');
    const timer = setTimeout(() => done('stalled'), input.stallMs);
    response.on(input.event, onDrain);
    response.on('close', onDrain);
    signal.addEventListener('abort', onDrain);
  });
}

/** Cuts a client that took nothing for `stallMs`: the request stops (upstream freed), the socket closes. */
function cut(response: ServerResponse, options: WriteOptions, stallMs: number): void {
  options.stop(
    new RouterError({
      code: 'CLIENT_CLOSED',
      message: `client stopped reading: it took none of the answer for ${stallMs} ms, so it was cut`,
    }),
  );
  response.destroy();
}

async function writeStream(
  response: ServerResponse,
  answer: Extract<GatewayResponse, { kind: 'stream' }>,
  options: WriteOptions,
): Promise<void> {
  response.writeHead(
    200,
    Object.assign({}, answer.headers, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
      // `close` when set before (a drain began): the client reconnects elsewhere after the stream
      connection: response.getHeader('connection') === 'close' ? 'close' : 'keep-alive',
    }),
  );
  const wait = {
    signal: options.signal,
    stallMs: answer.stallMs ?? DEFAULT_STALL_MS,
    event: 'drain',
  } as const;
  // Stops when the client has gone; a stream stopped by the drain still writes its in-band error.
  // While the socket is full the next frame is not asked for, so the upstream read pauses too.
  for await (const frame of answer.events) {
    if (response.destroyed) break;
    if (response.write(frame)) continue;
    if ((await drained(response, wait)) === 'drained') continue;
    cut(response, options, wait.stallMs);
    break;
  }
  response.end();
}

/**
 * Writes a whole body: at once when short; else in pieces, each after the socket drained, and a client
 * that takes none of it for `stallMs` is cut (its answer is not held for as long as it keeps the
 * connection open).
 */
async function writeBody(
  response: ServerResponse,
  body: string | Buffer,
  input: { options: WriteOptions; stallMs: number | undefined },
): Promise<void> {
  if (body.length <= WRITE_PIECE) {
    response.end(body);
    return;
  }
  // pieces of bytes, not of UTF-16 units: a piece must not end inside a surrogate pair
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const wait = { signal: input.options.signal, stallMs: input.stallMs ?? DEFAULT_STALL_MS };
  for (let start = 0; start < bytes.length; start += WRITE_PIECE) {
    if (response.destroyed) return;
    if (response.write(bytes.subarray(start, start + WRITE_PIECE))) continue;
    if ((await drained(response, { ...wait, event: 'drain' })) === 'stalled')
      return cut(response, input.options, wait.stallMs);
  }
  response.end();
  if (response.writableFinished || response.destroyed) return;
  if ((await drained(response, { ...wait, event: 'finish' })) === 'stalled')
    cut(response, input.options, wait.stallMs);
}

/** Writes an answer: JSON, SSE frames with back-pressure, or raw bytes; a client that stalls is cut. */
export async function writeAnswer(
  response: ServerResponse,
  answer: Answer,
  options: WriteOptions,
): Promise<void> {
  switch (answer.kind) {
    case 'stream':
      return writeStream(response, answer, options);
    case 'json':
      return writeBody(response, writeJsonHead(response, answer), { options, stallMs: answer.stallMs });
    case 'raw':
      response.writeHead(
        answer.status,
        Object.assign({}, answer.headers, { 'content-length': Buffer.byteLength(answer.body) }),
      );
      return writeBody(response, answer.body, { options, stallMs: undefined });
  }
}
