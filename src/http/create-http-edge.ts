import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Exchange } from '../gateway/exchange.js';
import { runStages, type Stage, type StageListener } from '../gateway/stages.js';
import type { Settle } from '../gateway/stages/settle.js';
import { toLoggedPath } from '../observe/request-summary.js';
import type { Clock } from '../shared/clock.js';
import { RouterError, toRouterError } from '../shared/errors.js';
import { passThroughTracer, type Tracer } from '../shared/tracing.js';
import { toShuttingDownError, type DrainGate } from './drain.js';
import { readJsonBody, type BodyLimits } from './read-body.js';
import { toExchange } from './request-context.js';
import { endSpanWithResponse, failRequestSpan, startRequestSpan } from './request-span.js';
import { createRouteIndex, type Route, type RouteMatch } from './route.js';
import { writeAnswer } from './write-answer.js';
import { writeError } from './write-error.js';

export interface HttpEdgeOptions {
  /** Every route: the endpoints of ENDPOINTS (src/endpoints) and the dashboard's, bound in routes.ts. */
  routes: readonly Route[];
  /** The authenticate stage (gateway/stages/authenticate.ts): the key from headers, before any body is read. */
  authenticate: Stage;
  /** Ends a request the edge rejects itself (the gateway settles what it serves); once per request. */
  settle: Settle;
  /** Every stage the edge runs is reported here. */
  onStage: StageListener;
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

function toMissingRoute(exchange: Exchange, match: RouteMatch): RouterError {
  const { method, path } = exchange.http;
  const shown = JSON.stringify(toLoggedPath(path));
  if (match.allow === undefined)
    return new RouterError({ code: 'NOT_FOUND', message: `no endpoint ${method} ${shown}` });
  return new RouterError({
    code: 'METHOD_NOT_ALLOWED',
    message: `${shown} does not take ${method}; it takes ${match.allow.join(', ')}`,
  });
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
 * The HTTP edge: match the route (404 `not_found`, 405 with `Allow`), run the authenticate stage, read
 * the body, call the handler, write the answer; every error is written by the one mapping in
 * write-error.ts. It creates the request's exchange (gateway/exchange.ts) and settles the ones it
 * rejects itself (a routed request is settled by the gateway, a stream when it ends; settle runs once).
 * While the service drains, every route but the open ones (/health, /ready) answers 503 SHUTTING_DOWN.
 * It never calls on to another handler and never rejects: every request ends here.
 */
export function createHttpEdge(options: HttpEdgeOptions): HttpEdge {
  const { clock, drain, settle } = options;
  const match = createRouteIndex(options.routes);
  const tracer = options.tracer ?? passThroughTracer;
  const authenticate = [options.authenticate];
  const run = { clock, onStage: options.onStage };

  async function serve(request: IncomingMessage, response: ServerResponse, basePath: string): Promise<void> {
    if (drain !== undefined) trackResponse(drain, request, response);
    const path = toPath(request.url);
    const method = request.method ?? 'GET';
    const found = match(method, path);
    const trace = startRequestSpan(tracer, request, { method, path, found });
    endSpanWithResponse(trace, response);
    const { exchange, detach, stop } = toExchange(request, response, {
      clock,
      path,
      stop: drain?.signal,
      trace,
    });
    exchange.endpoint = found.endpoint;
    try {
      const route = found.route;
      if (route === undefined) throw toMissingRoute(exchange, found);
      exchange.access = route.access;
      if (drain?.isDraining() === true && route.access !== 'open')
        throw toShuttingDownError('autotier is shutting down; retry on another instance');
      // The key check reads headers only, so it comes before the body (no key + bad body is 401).
      await runStages(authenticate, exchange, run);
      if (route.readsBody) exchange.body = await readJsonBody(request, options.bodyLimits, exchange.signal);
      const answer = await route.handle({ exchange, basePath });
      closeWhenDraining(drain, response);
      await writeAnswer(response, answer, { signal: exchange.signal, stop });
    } catch (thrown) {
      const error = toRouterError(thrown);
      failRequestSpan(trace, error);
      closeWhenDraining(drain, response);
      writeError(response, {
        error,
        requestId: exchange.requestId,
        allow: found.allow,
        revealInternal: exchange.revealInternal,
      });
      // a routed answer settles itself (a stream at its end); anything else the edge rejected is settled here
      if (exchange.answer === undefined) settle(exchange, { status: error.status, error });
    } finally {
      detach();
    }
  }

  return serve;
}
