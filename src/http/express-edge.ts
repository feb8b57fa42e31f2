import { randomUUID } from 'node:crypto';
import express, { type ErrorRequestHandler, type Express, type RequestHandler, type Router } from 'express';
import { RouterError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { HttpEdge } from './create-http-edge.js';
import { writeError } from './write-error.js';

/**
 * The edge as one express handler: routing, keys, bodies and errors stay in the edge (every endpoint
 * declared once, in ENDPOINTS of src/endpoints; bodies read by read-body.ts), so express adds one
 * function call per request. Express's own routing is not used for the endpoints: its matching
 * ignores case and answers OPTIONS itself, where the edge answers 404 and 405 with `Allow`. `request.baseUrl` is the
 * mount path ('' at the root), and `request.url` the path below it.
 */
function toHandler(edge: HttpEdge): RequestHandler {
  return (request, response) => edge(request, response, request.baseUrl);
}

/**
 * The last handler: the edge answers every request and never rejects, so this runs only for a fault
 * in express itself; it logs the fault under the request id and writes the OpenAI-shaped INTERNAL
 * error (which tells the client to look the id up in the logs) instead of express's HTML page.
 */
function toErrorHandler(logger: Logger): ErrorRequestHandler {
  // express tells an error handler from a request handler by its four parameters
  // eslint-disable-next-line max-params
  return (thrown: unknown, _request, response, _next) => {
    const header = response.getHeader('x-request-id');
    const requestId = typeof header === 'string' ? header : randomUUID();
    logger.error('a fault reached express', { request_id: requestId, error: String(thrown) });
    writeError(response, {
      error: new RouterError({ code: 'INTERNAL', message: String(thrown), cause: thrown }),
      requestId,
      revealInternal: false,
    });
  };
}

/**
 * The edge as an express Router, for an operator's app: `app.use('/llm', router)`. The operator's
 * middleware before the mount sees every request first; the router answers every request that
 * reaches it (an unknown path is the edge's 404) and never calls on to what comes after it. The
 * operator's app settings (x-powered-by, trust proxy, ...) stay the operator's.
 */
export function createEdgeRouter(edge: HttpEdge, logger: Logger): Router {
  const router = express.Router();
  router.use(toHandler(edge), toErrorHandler(logger));
  return router;
}

/**
 * The edge as its own express app, for autotier's own server (`npm start`): the same handlers as the
 * router, directly on the app (no router in between), and none of express's answers: no
 * `X-Powered-By`, no ETag, no query-string parsing (the edge reads none), no HTML error page.
 */
export function createEdgeApp(edge: HttpEdge, logger: Logger): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', false);
  app.use(toHandler(edge), toErrorHandler(logger));
  return app;
}
