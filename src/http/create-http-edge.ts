import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiKeyConfig } from '../config/table-part-schemas.js';
import type { RequestContext } from '../gateway/gateway.js';
import { toLoggedPath, toRejectedSummary, type RequestObserver } from '../observe/request-summary.js';
import type { Clock } from '../shared/clock.js';
import { RouterError, toRouterError } from '../shared/errors.js';
import { passThroughTracer, type Tracer } from '../shared/tracing.js';
import { toShuttingDownError, type DrainGate } from './drain.js';
import { readJsonBody, type BodyLimits } from './read-body.js';
import { toRequestContext } from './request-context.js';
import { endSpanWithResponse, failRequestSpan, startRequestSpan } from './request-span.js';
import { createRouteIndex, type Route, type RouteMatch } from './route.js';
import { writeAnswer } from './write-answer.js';
import { writeError } from './write-error.js';
import { revealsInternal } from '../policy/api-keys.js';

export interface HttpEdgeOptions {
  /** Every route: the endpoints of ENDPOINTS (src/endpoints) and the dashboard's, bound in routes.ts. */
  routes: readonly Route[];
  /** The caller's key from headers only: undefined in open mode; throws 401 for a missing or unknown key. */
  authenticate: (context: RequestContext) => ApiKeyConfig | undefined;
  /** Receives one summary per request the edge rejects itself. */
  observer: RequestObserver;
  clock: Clock;
  bodyLimits: BodyLimits;
  /** The service's drain: requests are counted, refused while it runs, and stopped when its grace ends. */
  drain?: DrainGate;
  /** One server span per request. @default passThroughTracer (records nothing) */
  tracer?: Tracer;
}

function toPath(url: string | undefined): string {
  const text = url ?? '/';
  const query = text.indexOf('?');
  return query === -1 ? text : text.slice(0, query);
}

function toMissingRoute(context: RequestContext, match: RouteMatch): RouterError {
  const { method, path } = context.http;
  const shown = JSON.stringify(toLoggedPath(path));
  if (match.allow === undefined)
    return new RouterError({ code: 'NOT_FOUND', message: `no endpoint ${method} ${shown}` });
  return new RouterError({
    code: 'METHOD_NOT_ALLOWED',
    message: `${shown} does not take ${method}; it takes ${match.allow.join(', ')}`,
  });
}

/** An admin route's check, once the key is known (undefined in open mode: everything is open). */
function requireAdmin(key: ApiKeyConfig | undefined): void {
  if (key !== undefined && !key.admin)
    throw new RouterError({ code: 'FORBIDDEN', message: `key ${key.name} is not an admin key` });
}

/**
 * Counts the request as in flight until its response closed; during a drain, that closes its connection
 * too (an answer whose headers went out before the drain began still said keep-alive).
 */
function trackResponse(drain: DrainGate, request: IncomingMessage, response: ServerResponse): void {
  const release = drain.track();
  const socket = request.socket;
  response.once('close', () => {
    release();
    if (drain.isDraining() && !socket.destroyed) socket.end();
  });
}

/** During a drain every answer says `Connection: close`, so the client reconnects to another instance. */
function closeWhenDraining(drain: DrainGate | undefined, response: ServerResponse): void {
  if (drain?.isDraining() === true && !response.headersSent) response.setHeader('connection', 'close');
}

/**
 * Serves one request on node:http's request and response (express-edge.ts mounts it in express).
 * `basePath` is where the edge is mounted, '' at the root: `request.url` is relative to it, and an
 * answer that names one of the edge's own paths (the dashboard's redirect) puts it in front.
 */
export type HttpEdge = (
  request: IncomingMessage,
  response: ServerResponse,
  basePath: string,
) => Promise<void>;

/**
 * The HTTP edge: match the route (404 `not_found`, 405 with `Allow`), check the key, read the body, call
 * the handler, write the answer; every error is written by the one mapping in write-error.ts, and
 * every request the edge rejects is reported once to the observer (routed requests report themselves).
 * While the service drains, every route but the open ones (/health, /ready) answers 503 SHUTTING_DOWN.
 * It never calls on to another handler and never rejects: every request ends here.
 */
export function createHttpEdge(options: HttpEdgeOptions): HttpEdge {
  const { clock, observer, drain } = options;
  const match = createRouteIndex(options.routes);
  const tracer = options.tracer ?? passThroughTracer;
  const report = (rejected: {
    context: RequestContext;
    found: RouteMatch;
    key: ApiKeyConfig | undefined;
    error: RouterError;
  }): void => {
    const { context, error } = rejected;
    observer.onRequest(
      toRejectedSummary({
        requestId: context.requestId,
        clientRequestId: context.clientRequestId,
        keyName: rejected.key?.name,
        endpoint: rejected.found.endpoint,
        http: context.http,
        status: error.status,
        errorCode: error.code,
        errorMessage: error.message,
        receivedAt: context.receivedAt,
        endedAt: clock.now(),
      }),
    );
  };

  async function serve(request: IncomingMessage, response: ServerResponse, basePath: string): Promise<void> {
    if (drain !== undefined) trackResponse(drain, request, response);
    const path = toPath(request.url);
    const method = request.method ?? 'GET';
    const found = match(method, path);
    const trace = startRequestSpan(tracer, request, { method, path, found });
    endSpanWithResponse(trace, response);
    const { context, detach, stop } = toRequestContext(request, response, {
      clock,
      path,
      stop: drain?.signal,
      trace,
    });
    let key: ApiKeyConfig | undefined;
    let reportedByHandler = false;
    /** Internal detail in errors: for an admin key, or anyone in open mode; never before the key is known. */
    let revealInternal = false;
    try {
      const route = found.route;
      if (route === undefined) throw toMissingRoute(context, found);
      if (drain?.isDraining() === true && route.access !== 'open')
        throw toShuttingDownError('autotier is shutting down; retry on another instance');
      // The key check reads headers only, so it comes before the body (no key + bad body is 401).
      key = route.access === 'open' ? undefined : options.authenticate(context);
      revealInternal = revealsInternal(key, route.access);
      if (route.access === 'admin') requireAdmin(key);
      const body = route.readsBody
        ? await readJsonBody(request, options.bodyLimits, context.signal)
        : undefined;
      reportedByHandler = route.reportsItself === true;
      const answer = await route.handle({ body, context, key, basePath });
      closeWhenDraining(drain, response);
      await writeAnswer(response, answer, { signal: context.signal, stop });
    } catch (thrown) {
      const error = toRouterError(thrown);
      failRequestSpan(trace, error);
      closeWhenDraining(drain, response);
      writeError(response, { error, requestId: context.requestId, allow: found.allow, revealInternal });
      if (!reportedByHandler) report({ context, found, key, error });
    } finally {
      detach();
    }
  }

  return serve;
}
