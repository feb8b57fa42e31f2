import { chat } from './chat.js';
import { completions } from './completions.js';
import { embeddings } from './embeddings.js';
import { health } from './health.js';
import { metrics } from './metrics.js';
import { model, models } from './models.js';
import { ready } from './ready.js';
import { responses } from './responses.js';
import { route } from './route.js';
import { state } from './state.js';

/**
 * Every endpoint of autotier, in one list: the router (src/http/routes.ts), the docs test and the
 * types below read it. The dashboard's page and its data are the one group outside it: static files
 * served by src/http/dashboard.ts.
 */
export const ENDPOINTS = [
  chat,
  responses,
  completions,
  embeddings,
  route,
  models,
  model,
  health,
  ready,
  metrics,
  state,
] as const;

export type Endpoint = (typeof ENDPOINTS)[number];
/** The paths autotier serves (a prefix path ends in `/`). */
export type EndpointPath = Endpoint['path'];
