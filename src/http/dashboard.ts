import { fileURLToPath } from 'node:url';
import express, { type Express, type Request, type Response } from 'express';
import type { ActivitySnapshot } from '../observe/recent-activity.js';

export interface DashboardDependencies {
  /** Wraps a handler so it needs the admin key when keys are configured. */
  admin: (
    handler: (request: Request, response: Response) => Promise<void>,
  ) => (request: Request, response: Response) => Promise<void>;
  activity: () => ActivitySnapshot;
  state: () => Promise<Record<string, unknown>>;
  /** Server time (epoch ms), so the page times cooldown countdowns by the server's clock. */
  now: () => number;
}

/** Static page and script, next to this file's compiled or source folder (no CDN: works offline). */
export const DASHBOARD_ASSETS = fileURLToPath(new URL('../dashboard/public/', import.meta.url));

/**
 * GET /dashboard serves the page (it holds no data); its data comes from GET /dashboard/api/summary,
 * which needs the admin key when keys are configured (the page asks for it and sends it as a Bearer token).
 */
export function mountDashboard(app: Express, dependencies: DashboardDependencies): void {
  app.get('/dashboard', (request, response, next) => {
    // Express 5 routes ignore a trailing slash: without this check /dashboard/ would redirect to itself.
    if (request.path.endsWith('/')) {
      next();
      return;
    }
    response.redirect(302, '/dashboard/');
  });
  app.use('/dashboard/', express.static(DASHBOARD_ASSETS, { index: 'index.html', fallthrough: true }));
  app.get(
    '/dashboard/api/summary',
    dependencies.admin(async (_request, response) => {
      response.set('cache-control', 'no-store').json({
        now: dependencies.now(),
        activity: dependencies.activity(),
        state: await dependencies.state(),
      });
    }),
  );
}
