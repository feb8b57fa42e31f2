import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestContext } from '../gateway/create-gateway.js';
import type { Clock } from '../shared/clock.js';
import { createCancelController, type CancelSignal } from '../shared/cancel-signal.js';
import { RouterError } from '../shared/errors.js';
import type { Span } from '../shared/tracing.js';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The client's `x-request-id` when it is a plain token, otherwise a new UUID. */
export function toRequestId(given: string | string[] | undefined): string {
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

export function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The request's context (its id is set as the `x-request-id` response header at once), and a function
 * that detaches it from the response once the answer is written: the response object outlives the
 * request (node:http keeps it until a full GC), and a listener still attached would keep the whole
 * request alive with it. The context's signal aborts with CLIENT_CLOSED when the client goes away, and
 * with the reason of `stop` (SHUTTING_DOWN at the end of a drain) when that aborts first, or with the
 * reason given to the returned `stop` (a client cut for not reading).
 */
export function toRequestContext(
  request: IncomingMessage,
  response: ServerResponse,
  input: { clock: Clock; path: string; stop?: CancelSignal | undefined; trace?: Span | undefined },
): { context: RequestContext; detach: () => void; stop: (reason: RouterError) => void } {
  const controller = createCancelController();
  const onClose = (): void => {
    if (!response.writableFinished)
      controller.abort(new RouterError({ code: 'CLIENT_CLOSED', message: 'client closed the connection' }));
  };
  const { stop } = input;
  const onStop = (): void => controller.abort(stop?.reason);
  response.on('close', onClose);
  if (stop?.aborted === true) onStop();
  else stop?.addEventListener('abort', onStop);
  const requestId = toRequestId(request.headers['x-request-id']);
  response.setHeader('x-request-id', requestId);
  if (input.trace?.recording === true) input.trace.setAttributes({ 'autotier.request_id': requestId });
  return {
    context: {
      requestId,
      signal: controller.signal,
      receivedAt: input.clock.now(),
      http: { method: request.method ?? 'GET', path: input.path },
      hints: { minTier: header(request, 'x-autotier-min-tier'), sessionKey: header(request, 'x-session-id') },
      credentials: { authorization: header(request, 'authorization'), apiKey: header(request, 'x-api-key') },
      ...(input.trace === undefined ? {} : { trace: input.trace }),
    },
    detach: () => {
      response.off('close', onClose);
      stop?.removeEventListener('abort', onStop);
    },
    stop: (reason) => controller.abort(reason),
  };
}
