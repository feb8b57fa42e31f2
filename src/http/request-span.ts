import type { IncomingMessage, ServerResponse } from 'node:http';
import { toLoggedPath } from '../observe/request-summary.js';
import type { RouterError } from '../shared/errors.js';
import { NO_SPAN, type Span, type Tracer } from '../shared/tracing.js';
import { header } from './request-context.js';
import type { RouteMatch } from './route.js';

/** Methods named as they are in `http.request.method`; any other is `_OTHER` (HTTP semantic conventions). */
const KNOWN_METHODS = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'CONNECT',
  'TRACE',
]);

/** Probes and scrapes, which would fill a trace store with spans nobody reads: never traced. */
const UNTRACED = new Set(['health', 'ready', 'metrics']);

/**
 * The server span of one request: named `POST /v1/chat/completions` after the declared
 * route (the method alone for a path no route has), a child of the client's valid `traceparent`.
 * Its attributes are made only when it records.
 */
export function startRequestSpan(
  tracer: Tracer,
  request: IncomingMessage,
  input: { method: string; path: string; found: RouteMatch },
): Span {
  if (UNTRACED.has(input.found.endpoint)) return NO_SPAN;
  const method = KNOWN_METHODS.has(input.method) ? input.method : '_OTHER';
  const route = input.found.route?.path;
  const span = tracer.startRequest(route === undefined ? method : `${method} ${route}`, {
    incoming: { traceparent: header(request, 'traceparent'), tracestate: header(request, 'tracestate') },
  });
  if (span.recording)
    span.setAttributes({
      'http.request.method': method,
      'http.route': route,
      'url.path': toLoggedPath(input.path),
      'url.scheme': 'http',
      'autotier.endpoint': input.found.endpoint,
    });
  return span;
}

/** Ends the request's span when its response closed, with the status sent (a cut stream counts as sent). */
export function endSpanWithResponse(span: Span, response: ServerResponse): void {
  if (!span.recording) return;
  response.once('close', () => {
    span.setAttributes({ 'http.response.status_code': response.statusCode });
    span.end();
  });
}

/**
 * Marks a request that failed: `autotier.error.code` always; status ERROR only for a 5xx (a client's
 * mistake, 4xx, is not the server's error: HTTP semantic conventions for server spans).
 */
export function failRequestSpan(span: Span, error: RouterError): void {
  if (!span.recording) return;
  span.setAttributes({ 'autotier.error.code': error.code });
  if (error.status >= 500) span.fail(error);
}
