import { ENDPOINTS } from '../endpoints/index.js';
import type { EndpointServices } from '../endpoints/endpoint.js';
import type { HistorySnapshot } from '../observe/activity-history.js';
import type { ActivitySnapshot } from '../observe/recent-activity.js';
import { dashboardRoutes } from './dashboard.js';
import type { Route } from './route.js';

export interface RouteDependencies extends EndpointServices {
  /** Recent activity, for the dashboard. */
  activity: () => ActivitySnapshot;
  /** Per-minute history of the last hour, for the dashboard's charts. */
  history: () => HistorySnapshot;
  /** Server time, epoch ms. */
  now: () => number;
}

/**
 * The routes of every endpoint in ENDPOINTS (src/endpoints), bound to their services, and the
 * dashboard's page and data. `key`: needs an API key when keys are configured (checked from headers
 * before the body is read); `admin`: an admin key; `open`: anyone.
 */
export function declareRoutes(dependencies: RouteDependencies): Route[] {
  const endpoints = ENDPOINTS.map((endpoint): Route => ({
    method: endpoint.method,
    path: endpoint.path,
    ...('prefix' in endpoint ? { prefix: endpoint.prefix } : {}),
    endpoint: endpoint.name,
    access: endpoint.access,
    readsBody: endpoint.body !== 'none',
    handle: (input) => endpoint.handle(input, dependencies),
  }));
  return [
    ...endpoints,
    ...dashboardRoutes({
      activity: dependencies.activity,
      history: dependencies.history,
      state: dependencies.state,
      now: dependencies.now,
    }),
  ];
}
