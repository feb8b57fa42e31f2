import { jsonAnswer, type EndpointModule } from './endpoint.js';

/** Readiness: 200 when a table is loaded and at least one deployment is not cooling down, else 503. */
export const ready = {
  method: 'GET',
  path: '/ready',
  name: 'ready',
  access: 'open',
  body: 'none',
  upstream: 'none',
  handle: async (_input, services) =>
    (await services.isReady())
      ? jsonAnswer(200, { status: 'ready' })
      : jsonAnswer(503, { status: 'not_ready' }),
} as const satisfies EndpointModule;
