import express, { type NextFunction, type Request, type Response } from 'express';
import type { Gateway, GatewayResponse, RequestContext } from '../gateway/create-gateway.js';
import type { Logger } from '../observe/logger.js';
import type { ActivitySnapshot } from '../observe/recent-activity.js';
import type { Clock } from '../shared/clock.js';
import { RouterError, toRouterError } from '../shared/errors.js';
import { toRequestContext, toRequestId, writeAnswer, writeError } from './api-routes.js';
import { mountDashboard } from './dashboard.js';

export interface AppDependencies {
  gateway: Gateway;
  logger: Logger;
  clock: Clock;
  /** True when a table is loaded and at least one deployment is not cooling down. */
  isReady: () => Promise<boolean>;
  /** Prometheus text of the metrics registry. */
  metrics: () => Promise<string>;
  /** GET /autotier/state */
  state: () => Promise<Record<string, unknown>>;
  /** Recent activity, for the dashboard. */
  activity: () => ActivitySnapshot;
  /** Largest accepted JSON body, in bytes. */
  bodyLimitBytes: number;
}

/** The express adapter: parse, call one gateway function, write JSON or SSE. */
export function createApp(dependencies: AppDependencies): express.Express {
  const { gateway, clock, logger } = dependencies;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(express.json({ limit: dependencies.bodyLimitBytes }));

  const route =
    (handler: (body: unknown, context: RequestContext) => Promise<GatewayResponse>) =>
    async (request: Request, response: Response): Promise<void> => {
      const { context, detach } = toRequestContext(request, response, clock);
      try {
        await writeAnswer(response, await handler(request.body as unknown, context), context.signal);
      } finally {
        detach();
      }
    };
  /** Operator endpoints: the admin key when keys are configured. */
  const admin =
    (handler: (request: Request, response: Response) => Promise<void>) =>
    async (request: Request, response: Response): Promise<void> => {
      const { context, detach } = toRequestContext(request, response, clock);
      detach();
      const key = gateway.authenticate(context);
      if (key !== undefined && !key.admin)
        throw new RouterError({ code: 'FORBIDDEN', message: `key ${key.name} is not an admin key` });
      await handler(request, response);
    };

  app.post(
    '/v1/chat/completions',
    route((body, context) => gateway.chatCompletion(body, context)),
  );
  app.post(
    '/v1/completions',
    route((body, context) => gateway.completion(body, context)),
  );
  app.post(
    '/v1/route',
    route(async (body, context) => ({
      kind: 'json',
      status: 200,
      headers: {},
      body: await gateway.explain(body, context),
    })),
  );
  app.get('/v1/models', (_request, response) => {
    response.json(gateway.listModels());
  });
  app.get('/health', (_request, response) => {
    response.json({ status: 'ok' });
  });
  app.get('/ready', async (_request, response) => {
    const ready = await dependencies.isReady();
    response.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready' });
  });
  app.get(
    '/metrics',
    admin(async (_request, response) => {
      response.type('text/plain; version=0.0.4').send(await dependencies.metrics());
    }),
  );
  app.get(
    '/autotier/state',
    admin(async (_request, response) => {
      response.json(await dependencies.state());
    }),
  );
  mountDashboard(app, {
    admin,
    activity: dependencies.activity,
    state: dependencies.state,
    now: () => clock.now(),
  });
  app.use((request: Request, _response: Response, next: NextFunction) => {
    next(new RouterError({ code: 'MODEL_NOT_FOUND', message: `no route ${request.method} ${request.path}` }));
  });
  // express recognizes an error handler by its four parameters.
  // eslint-disable-next-line max-params
  app.use((error: unknown, request: Request, response: Response, _next: NextFunction) => {
    const requestId =
      (response.getHeader('x-request-id') as string | undefined) ?? toRequestId(request.get('x-request-id'));
    writeError(response, { error: toHttpError(error), requestId, logger });
  });
  return app;
}

/** body-parser errors (bad JSON, too large) become INVALID_REQUEST; the rest keep their code. */
function toHttpError(error: unknown): RouterError {
  const type = (error as { type?: unknown }).type;
  if (type === 'entity.parse.failed')
    return new RouterError({
      code: 'INVALID_REQUEST',
      message: `the body is not valid JSON: ${(error as Error).message}`,
      param: 'body',
    });
  if (type === 'entity.too.large')
    return new RouterError({
      code: 'INVALID_REQUEST',
      message: 'the body is larger than the configured limit',
      param: 'body',
    });
  return toRouterError(error);
}
