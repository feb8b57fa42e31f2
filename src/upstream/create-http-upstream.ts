import { Pool } from 'undici';
import type { DeploymentConfig } from '../config/table-part-schemas.js';
import type { Clock } from '../shared/clock.js';
import { startAttempt } from './dispatch-attempt.js';
import { readDeploymentKey } from './deployment-key.js';
import type { AttemptRequest, Upstream, UpstreamAttempt } from './upstream.js';

export interface HttpUpstreamOptions {
  clock: Clock;
  /** Reads an API key from the environment by variable name. */
  readSecret: (name: string) => string | undefined;
  /** Keep-alive of idle pooled sockets, in ms. @default 30000 */
  keepAliveMs?: number;
}

/** Upstream over undici: one keep-alive pool per deployment origin, Nagle off. */
export function createHttpUpstream(options: HttpUpstreamOptions): Upstream {
  const pools = new Map<string, Pool>();
  /** Each base URL's pool and path prefix, parsed once (not per request). */
  const targets = new Map<string, { pool: Pool; basePath: string }>();
  const targetFor = (deployment: DeploymentConfig): { pool: Pool; basePath: string } => {
    let target = targets.get(deployment.base_url);
    if (target !== undefined) return target;
    const url = new URL(deployment.base_url);
    let pool = pools.get(url.origin);
    if (pool === undefined) {
      pool = new Pool(url.origin, {
        connections: Math.max(deployment.max_concurrency, 8),
        keepAliveTimeout: options.keepAliveMs ?? 30_000,
        connect: { noDelay: true },
      });
      pools.set(url.origin, pool);
    }
    target = { pool, basePath: url.pathname.replace(/\/$/, '') };
    targets.set(deployment.base_url, target);
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
