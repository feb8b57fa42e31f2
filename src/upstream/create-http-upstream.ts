import type { DeploymentConfig } from '../config/table-part-schemas.js';
import type { Clock } from '../shared/clock.js';
import { startAttempt } from './dispatch-attempt.js';
import { readDeploymentKey } from './deployment-key.js';
import type { AttemptRequest, Upstream, UpstreamAttempt } from './upstream.js';
import { Pool } from './undici-dispatchers.js';

export interface HttpUpstreamOptions {
  clock: Clock;
  /** Reads an API key from the environment by variable name. */
  readSecret: (name: string) => string | undefined;
  /** Keep-alive of idle pooled sockets, in ms. @default 30000 */
  keepAliveMs?: number;
}

/**
 * Upstream over undici: one keep-alive pool per deployment (Nagle off), with at least as many
 * connections as the deployment's max_concurrency. Deployments on one server do not share a pool: a
 * shared one would queue one deployment's calls behind another's held streams until connect_ms ran
 * out, and that timeout would bench a deployment that was never at fault.
 */
export function createHttpUpstream(options: HttpUpstreamOptions): Upstream {
  const pools = new Map<string, Pool>();
  /** Each deployment's pool and path prefix, parsed once (not per request). */
  const targets = new Map<string, { pool: Pool; basePath: string }>();
  const targetFor = (deployment: DeploymentConfig): { pool: Pool; basePath: string } => {
    const id = `${deployment.id} ${deployment.base_url}`;
    let target = targets.get(id);
    if (target !== undefined) return target;
    const url = new URL(deployment.base_url);
    const poolId = `${deployment.id} ${url.origin}`;
    let pool = pools.get(poolId);
    if (pool === undefined) {
      pool = new Pool(url.origin, {
        connections: Math.max(deployment.max_concurrency, 8),
        keepAliveTimeout: options.keepAliveMs ?? 30_000,
        connect: { noDelay: true },
      });
      pools.set(poolId, pool);
    }
    target = { pool, basePath: url.pathname.replace(/\/$/, '') };
    targets.set(id, target);
    return target;
  };

  const headersFor = (request: AttemptRequest, key: string | undefined): Record<string, string> => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: request.answer === 'json' ? 'application/json' : 'text/event-stream',
      'x-request-id': request.requestId,
    };
    if (key !== undefined) headers['authorization'] = `Bearer ${key}`;
    const trace = request.traceHeaders;
    if (trace !== undefined) {
      if (trace['traceparent'] !== undefined) headers['traceparent'] = trace['traceparent'];
      if (trace['tracestate'] !== undefined) headers['tracestate'] = trace['tracestate'];
    }
    return headers;
  };

  function open(request: AttemptRequest): Promise<UpstreamAttempt> {
    const key = readDeploymentKey(request.deployment, options.readSecret);
    return startAttempt({
      request,
      clock: options.clock,
      secrets: key === undefined ? [] : [key],
      dispatch: (handler) => {
        const { pool, basePath } = targetFor(request.deployment);
        pool.dispatch(
          {
            path: `${basePath}${request.path}`,
            method: 'POST',
            headers: headersFor(request, key),
            body: request.body,
            // the watchdog times connect_ms precisely; undici's own coarse timer is only a backstop
            headersTimeout: request.limits.connectMs + 1000,
            bodyTimeout: 0,
          },
          handler,
        );
      },
    });
  }

  return {
    open,
    async close() {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
      pools.clear();
      targets.clear();
    },
  };
}
