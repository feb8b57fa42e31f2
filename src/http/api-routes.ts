import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Gateway, GatewayResponse, RequestContext } from '../gateway/create-gateway.js';
import type { Logger } from '../observe/logger.js';
import type { Clock } from '../shared/clock.js';
import { createCancelController, type CancelSignal } from '../shared/cancel-signal.js';
import { RouterError, toOpenAIErrorBody, toRouterError } from '../shared/errors.js';

/**
 * The routed endpoints on plain node:http: every chat and completion request passes here, so it skips
 * express's router, body-parser and response helpers (about a third of the CPU of a request in the
 * issue 8 profile). Everything else, and any body these functions do not read themselves (a
 * compressed body, a charset other than UTF-8), goes to the express app, which answers the same way.
 */
export interface ApiRouteOptions {
  gateway: Gateway;
  logger: Logger;
  clock: Clock;
  /** Largest accepted body, in bytes. */
  bodyLimitBytes: number;
}

type Handler = (gateway: Gateway, body: unknown, context: RequestContext) => Promise<GatewayResponse>;

const HANDLERS: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ['/v1/chat/completions', (gateway, body, context) => gateway.chatCompletion(body, context)],
  ['/v1/completions', (gateway, body, context) => gateway.completion(body, context)],
  [
    '/v1/route',
    async (gateway, body, context) => ({
      kind: 'json',
      status: 200,
      headers: {},
      body: await gateway.explain(body, context),
    }),
  ],
]);

const REQUEST_ID = /^[\w.:-]{1,128}$/;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const CHARSET = /;\s*charset\s*=\s*"?([\w-]+)"?/i;

/** The client's `x-request-id` when it is a plain token, otherwise a new UUID. */
export function toRequestId(given: string | string[] | undefined): string {
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Whether this adapter reads the body itself: JSON (or no body type at all), UTF-8, not compressed. */
function readsBody(request: IncomingMessage): boolean {
  const encoding = header(request, 'content-encoding');
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const type = header(request, 'content-type');
  if (type === undefined || !JSON_TYPE.test(type)) return true;
  const charset = CHARSET.exec(type)?.[1]?.toLowerCase();
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

/** The raw body, or 'too_large' past the limit (the rest is read and dropped, so the connection stays usable). */
function readRawBody(request: IncomingMessage, limitBytes: number): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = (): void => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('close', onClose);
    };
    function onData(chunk: Buffer): void {
      size += chunk.length;
      if (size > limitBytes) {
        cleanup();
        request.resume();
        resolve('too_large');
        return;
      }
      chunks.push(chunk);
    }
    function onEnd(): void {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    }
    function onError(error: Error): void {
      cleanup();
      reject(new RouterError({ code: 'CLIENT_CLOSED', message: 'the request body was cut', cause: error }));
    }
    function onClose(): void {
      cleanup();
      reject(new RouterError({ code: 'CLIENT_CLOSED', message: 'the request body was cut' }));
    }
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('close', onClose);
  });
}

/** The JSON body, as express.json() would give it: undefined unless the content type is JSON; `{}` when empty. */
async function readJsonBody(request: IncomingMessage, limitBytes: number): Promise<unknown> {
  const type = header(request, 'content-type');
  const isJson = type !== undefined && JSON_TYPE.test(type);
  const raw = await readRawBody(request, limitBytes);
  if (raw === 'too_large')
    throw new RouterError({
      code: 'INVALID_REQUEST',
      message: 'the body is larger than the configured limit',
      param: 'body',
    });
  if (!isJson) return undefined;
  if (raw.length === 0) return {};
  try {
    const parsed: unknown = JSON.parse(raw.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) throw new SyntaxError('the body must be an object');
    return parsed;
  } catch (error) {
    throw new RouterError({
      code: 'INVALID_REQUEST',
      message: `the body is not valid JSON: ${(error as Error).message}`,
      param: 'body',
    });
  }
}

/**
 * The request's context, and a function that detaches it from the response once the answer is
 * written: the response object outlives the request (node:http keeps it until a full GC), and a
 * listener still attached would keep the whole request alive with it.
 */
export function toRequestContext(
  request: IncomingMessage,
  response: ServerResponse,
  clock: Clock,
): { context: RequestContext; detach: () => void } {
  const controller = createCancelController();
  const onClose = (): void => {
    if (!response.writableFinished)
      controller.abort(new RouterError({ code: 'CLIENT_CLOSED', message: 'client closed the connection' }));
  };
  response.on('close', onClose);
  const requestId = toRequestId(request.headers['x-request-id']);
  response.setHeader('x-request-id', requestId);
  return {
    context: {
      requestId,
      signal: controller.signal,
      receivedAt: clock.now(),
      hints: { minTier: header(request, 'x-autotier-min-tier'), sessionKey: header(request, 'x-session-id') },
      credentials: { authorization: header(request, 'authorization'), apiKey: header(request, 'x-api-key') },
    },
    detach: () => response.off('close', onClose),
  };
}

function writeJson(
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
      connection: 'keep-alive',
    }),
  );
  for await (const frame of answer.events) {
    if (signal.aborted) break;
    if (!response.write(frame)) await drained(response, signal);
  }
  response.end();
}

/** Writes a gateway answer: JSON, or SSE frames with back-pressure. */
export async function writeAnswer(
  response: ServerResponse,
  answer: GatewayResponse,
  signal: CancelSignal,
): Promise<void> {
  if (answer.kind === 'stream') return writeStream(response, answer, signal);
  writeJson(response, answer);
}

/** The OpenAI-shaped error answer (logged when it is a 5xx); ends the response if headers were sent. */
export function writeError(
  response: ServerResponse,
  failure: { error: RouterError; requestId: string; logger: Logger },
): void {
  const { error, requestId } = failure;
  if (error.status >= 500)
    failure.logger.error('request failed', { request_id: requestId, code: error.code, error: error.message });
  if (response.headersSent) {
    response.end();
    return;
  }
  const headers: Record<string, string> = { 'x-request-id': requestId };
  if (error.retryAfterSeconds !== undefined)
    headers['retry-after'] = String(Math.ceil(error.retryAfterSeconds));
  writeJson(response, { status: error.status, headers, body: toOpenAIErrorBody(error, requestId) });
}

/**
 * A request listener for the routed endpoints; returns false (and touches nothing) for any other
 * request, which the caller hands to express.
 */
export function createApiRoutes(
  options: ApiRouteOptions,
): (request: IncomingMessage, response: ServerResponse) => boolean {
  const { gateway, clock, logger } = options;
  const serve = async (
    handler: Handler,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> => {
    const { context, detach } = toRequestContext(request, response, clock);
    try {
      const body = await readJsonBody(request, options.bodyLimitBytes);
      await writeAnswer(response, await handler(gateway, body, context), context.signal);
    } catch (error) {
      writeError(response, { error: toRouterError(error), requestId: context.requestId, logger });
    } finally {
      detach();
    }
  };
  return (request, response) => {
    if (request.method !== 'POST') return false;
    const url = request.url ?? '';
    const query = url.indexOf('?');
    const handler = HANDLERS.get(query === -1 ? url : url.slice(0, query));
    if (handler === undefined || !readsBody(request)) return false;
    void serve(handler, request, response);
    return true;
  };
}
