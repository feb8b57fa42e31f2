import { jsonAnswer, type EndpointModule } from './endpoint.js';

/** Deployments' health, cooldowns and in-flight counts; the table's version and reloads. */
export const state = {
  method: 'GET',
  path: '/autotier/state',
  name: 'state',
  access: 'admin',
  body: 'none',
  upstream: 'none',
  handle: async (_input, services) => jsonAnswer(200, await services.state()),
} as const satisfies EndpointModule;
