import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createExchange, type Exchange } from '../gateway/exchange.js';
import type { Clock } from '../shared/clock.js';
import { createCancelController, type CancelSignal } from '../shared/cancel-signal.js';
import { RouterError } from '../shared/errors.js';
import type { Span } from '../shared/tracing.js';

/** Longest client request id kept, characters. */
const CLIENT_REQUEST_ID_CHARS = 128;
/** Anything but printable ASCII without space (0x21-0x7e) is dropped from a client's id. */
const NOT_PRINTABLE = /[^\x21-\x7e]/g;

/**
 * The client's own request id (`x-request-id`, or OpenAI's `x-client-request-id`), bounded: printable
 * ASCII only, at most 128 characters; undefined when there is none or nothing printable in it. It is
 * logged beside autotier's id and echoed as `x-client-request-id`, never sent to a deployment: the
 * fleet's logs hold autotier's ids only, so one tenant cannot write ids there that look like another's.
 */
export function toClientRequestId(request: IncomingMessage): string | undefined {
  const given = header(request, 'x-request-id') ?? header(request, 'x-client-request-id');
  if (given === undefined) return undefined;
  const kept = given.slice(0, CLIENT_REQUEST_ID_CHARS * 4).replace(NOT_PRINTABLE, '');
  return kept === '' ? undefined : kept.slice(0, CLIENT_REQUEST_ID_CHARS);
}

export function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The request's exchange (its id, autotier's own, is set as the `x-request-id` response header at once,
 * and the client's bounded id as `x-client-request-id`), and a function
 * that detaches it from the response once the answer is written: the response object outlives the
 * request (node:http keeps it until a full GC), and a listener still attached would keep the whole
 * request alive with it. The exchange's signal aborts with CLIENT_CLOSED when the client goes away, and
 * with the reason of `stop` (SHUTTING_DOWN at the end of a drain) when that aborts first, or with the
 * reason given to the returned `stop` (a client cut for not reading).
 */
export function toExchange(
  request: IncomingMessage,
  response: ServerResponse,
  input: { clock: Clock; path: string; stop?: CancelSignal | undefined; trace?: Span | undefined },
): { exchange: Exchange; detach: () => void; stop: (reason: RouterError) => void } {
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
  // autotier's own id, on every request: the one deployments, logs and error bodies carry
  const requestId = randomUUID();
  const clientRequestId = toClientRequestId(request);
  response.setHeader('x-request-id', requestId);
  if (clientRequestId !== undefined) response.setHeader('x-client-request-id', clientRequestId);
  if (input.trace?.recording === true)
    input.trace.setAttributes({
      'autotier.request_id': requestId,
      'autotier.client_request_id': clientRequestId,
    });
  return {
    exchange: createExchange({
      requestId,
      clientRequestId,
      signal: controller.signal,
      receivedAt: input.clock.now(),
      http: { method: request.method ?? 'GET', path: input.path },
      hints: { minTier: header(request, 'x-autotier-min-tier'), sessionKey: header(request, 'x-session-id') },
      credentials: { authorization: header(request, 'authorization'), apiKey: header(request, 'x-api-key') },
      trace: input.trace,
    }),
    detach: () => {
      response.off('close', onClose);
      stop?.removeEventListener('abort', onStop);
    },
    stop: (reason) => controller.abort(reason),
  };
}
