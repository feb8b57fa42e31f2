import type { ServerResponse } from 'node:http';
import type { GatewayResponse } from '../gateway/create-gateway.js';
import type { CancelSignal } from '../shared/cancel-signal.js';

/** What a route answers: a gateway answer (JSON or SSE), or bytes with their own headers (pages, metrics, redirects). */
export type Answer =
  GatewayResponse | { kind: 'raw'; status: number; headers: Record<string, string>; body: string | Buffer };

/** A JSON answer with no extra headers. */
export function jsonAnswer(status: number, body: unknown): Answer {
  return { kind: 'json', status, headers: {}, body };
}

export function writeJson(
  response: ServerResponse,
  answer: { status: number; headers: Record<string, string>; body: unknown },
): void {
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
  response.end(text);
}

/** Resolves when the socket drained or the request was cancelled. */
function drained(response: ServerResponse, signal: CancelSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done);
      response.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
    signal.addEventListener('abort', done);
  });
}

async function writeStream(
  response: ServerResponse,
  answer: Extract<GatewayResponse, { kind: 'stream' }>,
  signal: CancelSignal,
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
  // stops when the client has gone; a stream stopped by the drain still writes its in-band error
  for await (const frame of answer.events) {
    if (response.destroyed) break;
    if (!response.write(frame)) await drained(response, signal);
  }
  response.end();
}

/** Writes an answer: JSON, SSE frames with back-pressure, or raw bytes. */
export async function writeAnswer(
  response: ServerResponse,
  answer: Answer,
  signal: CancelSignal,
): Promise<void> {
  switch (answer.kind) {
    case 'stream':
      return writeStream(response, answer, signal);
    case 'json':
      return writeJson(response, answer);
    case 'raw':
      response.writeHead(
        answer.status,
        Object.assign({}, answer.headers, { 'content-length': Buffer.byteLength(answer.body) }),
      );
      response.end(answer.body);
  }
}
