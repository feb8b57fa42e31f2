import type { Gateway } from '../gateway/gateway.js';
import type { HistorySnapshot } from '../observe/activity-history.js';
import type { ActivitySnapshot } from '../observe/recent-activity.js';
import { dashboardRoutes } from './dashboard.js';
import type { Route } from './route.js';
import { jsonAnswer } from './write-answer.js';
import { MODELS_PREFIX, toModelId } from './model-id.js';

export interface RouteDependencies {
  gateway: Gateway;
  /** True when a table is loaded and at least one deployment is not cooling down. */
  isReady: () => Promise<boolean>;
  /** Prometheus text of the metrics registry, and its content type. */
  metrics: () => Promise<string>;
  metricsContentType: string;
  /** GET /autotier/state */
  state: () => Promise<Record<string, unknown>>;
  /** Recent activity, for the dashboard. */
  activity: () => ActivitySnapshot;
  /** Per-minute history of the last hour, for the dashboard's charts. */
  history: () => HistorySnapshot;
  /** Server time, epoch ms. */
  now: () => number;
}

/**
 * Every endpoint of autotier, in one table. `key`: needs an API key when keys are configured (checked
 * from headers before the body is read); `admin`: an admin key; `open`: anyone.
 */
export function declareRoutes(dependencies: RouteDependencies): Route[] {
  const { gateway } = dependencies;
  return [
    {
      method: 'POST',
      path: '/v1/chat/completions',
      endpoint: 'chat',
      access: 'key',
      readsBody: true,
      reportsItself: true,
      handle: ({ body, context }) => gateway.chatCompletion(body, context),
    },
    {
      method: 'POST',
      path: '/v1/responses',
      endpoint: 'responses',
      access: 'key',
      readsBody: true,
      reportsItself: true,
      handle: ({ body, context }) => gateway.responses(body, context),
    },
    {
      method: 'POST',
      path: '/v1/completions',
      endpoint: 'completions',
      access: 'key',
      readsBody: true,
      reportsItself: true,
      handle: ({ body, context }) => gateway.completion(body, context),
    },
    {
      method: 'POST',
      path: '/v1/embeddings',
      endpoint: 'embeddings',
      access: 'key',
      readsBody: true,
      reportsItself: true,
      handle: ({ body, context }) => gateway.embeddings(body, context),
    },
    {
      method: 'POST',
      path: '/v1/route',
      endpoint: 'route',
      access: 'key',
      readsBody: true,
      handle: async ({ body, context }) => jsonAnswer(200, await gateway.explain(body, context)),
    },
    {
      method: 'GET',
      path: '/v1/models',
      endpoint: 'models',
      access: 'key',
      readsBody: false,
      handle: () => jsonAnswer(200, gateway.listModels()),
    },
    {
      method: 'GET',
      path: MODELS_PREFIX,
      prefix: true,
      endpoint: 'models',
      access: 'key',
      readsBody: false,
      handle: ({ context }) => jsonAnswer(200, gateway.retrieveModel(toModelId(context.http.path))),
    },
    {
      method: 'GET',
      path: '/health',
      endpoint: 'health',
      access: 'open',
      readsBody: false,
      handle: () => jsonAnswer(200, { status: 'ok' }),
    },
    {
      method: 'GET',
      path: '/ready',
      endpoint: 'ready',
      access: 'open',
      readsBody: false,
      handle: async () =>
        (await dependencies.isReady())
          ? jsonAnswer(200, { status: 'ready' })
          : jsonAnswer(503, { status: 'not_ready' }),
    },
    {
      method: 'GET',
      path: '/metrics',
      endpoint: 'metrics',
      access: 'admin',
      readsBody: false,
      handle: async () => ({
        kind: 'raw',
        status: 200,
        headers: { 'content-type': dependencies.metricsContentType },
        body: await dependencies.metrics(),
      }),
    },
    {
      method: 'GET',
      path: '/autotier/state',
      endpoint: 'state',
      access: 'admin',
      readsBody: false,
      handle: async () => jsonAnswer(200, await dependencies.state()),
    },
    ...dashboardRoutes({
      activity: dependencies.activity,
      history: dependencies.history,
      state: dependencies.state,
      now: dependencies.now,
    }),
  ];
}
