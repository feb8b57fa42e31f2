import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { HistorySnapshot } from '../observe/activity-history.js';
import type { ActivitySnapshot } from '../observe/recent-activity.js';
import type { Route } from './route.js';
import type { Answer } from '../endpoints/endpoint.js';

export interface DashboardDependencies {
  activity: () => ActivitySnapshot;
  /** The last hour per minute (a fixed number of buckets: the answer's size does not grow with traffic). */
  history: () => HistorySnapshot;
  state: () => Promise<Record<string, unknown>>;
  /** Server time (epoch ms), so the page times cooldown countdowns by the server's clock. */
  now: () => number;
}

/** Static page and script, next to this file's compiled or source folder (no CDN: works offline). */
export const DASHBOARD_ASSETS = fileURLToPath(new URL('../dashboard/public/', import.meta.url));

interface Asset {
  name: string;
  type: string;
}

const INDEX: Asset = { name: 'index.html', type: 'text/html; charset=utf-8' };
/** The page's files, each served at /dashboard/<name> (index.html also at /dashboard/). */
const ASSETS: readonly Asset[] = [
  INDEX,
  { name: 'dashboard.js', type: 'text/javascript; charset=utf-8' },
  { name: 'history-charts.js', type: 'text/javascript; charset=utf-8' },
  { name: 'history-view.js', type: 'text/javascript; charset=utf-8' },
  { name: 'dashboard.css', type: 'text/css; charset=utf-8' },
];

async function fileAnswer(asset: Asset): Promise<Answer> {
  return {
    kind: 'raw',
    status: 200,
    headers: { 'content-type': asset.type, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' },
    body: await readFile(`${DASHBOARD_ASSETS}${asset.name}`),
  };
}

/**
 * GET /dashboard/ serves the page (it holds no data); its data comes from GET /dashboard/api/summary,
 * which needs the admin key when keys are configured (the page asks for it and sends it as a Bearer token).
 */
export function dashboardRoutes(dependencies: DashboardDependencies): Route[] {
  const page = (path: string, asset: Asset): Route => ({
    method: 'GET',
    path,
    endpoint: 'dashboard',
    access: 'open',
    readsBody: false,
    handle: () => fileAnswer(asset),
  });
  return [
    {
      method: 'GET',
      path: '/dashboard',
      endpoint: 'dashboard',
      access: 'open',
      readsBody: false,
      handle: ({ basePath }) => ({
        kind: 'raw',
        status: 302,
        headers: { location: `${basePath}/dashboard/` },
        body: '',
      }),
    },
    page('/dashboard/', INDEX),
    ...ASSETS.map((asset) => page(`/dashboard/${asset.name}`, asset)),
    {
      method: 'GET',
      path: '/dashboard/api/summary',
      endpoint: 'dashboard',
      access: 'admin',
      readsBody: false,
      handle: async () => ({
        kind: 'json',
        status: 200,
        headers: { 'cache-control': 'no-store' },
        body: {
          now: dependencies.now(),
          activity: dependencies.activity(),
          history: dependencies.history(),
          state: await dependencies.state(),
        },
      }),
    },
  ];
}
