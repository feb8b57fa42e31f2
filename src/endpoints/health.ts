import { jsonAnswer, type EndpointModule } from './endpoint.js';

/** Liveness: answers whenever the process does. */
export const health = {
  method: 'GET',
  path: '/health',
  name: 'health',
  access: 'open',
  body: 'none',
  upstream: 'none',
  handle: () => jsonAnswer(200, { status: 'ok' }),
} as const satisfies EndpointModule;
