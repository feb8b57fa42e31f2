import { Pool } from 'undici';
import type { DeploymentConfig } from '../config/routing-table-schema.js';
import type { Clock } from '../shared/clock.js';
import { RouterError } from '../shared/errors.js';
import { createAttemptWatchdog } from './attempt-watchdog.js';
import { readEvents } from './read-events.js';
import { toErrorFromException, toErrorFromStatus } from './translate-error.js';
import type { AttemptRequest, Upstream, UpstreamAttempt } from './upstream.js';

export interface HttpUpstreamOptions {
  clock: Clock;
  /** Reads an API key from the environment by variable name. */
  readSecret: (name: string) => string | undefined;
  /** Keep-alive of idle pooled sockets, in ms. @default 30000 */
  keepAliveMs?: number;
}

/** Longest upstream error body read, in bytes: enough for any message, bounded for a hostile server. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

async function readErrorBody(body: AsyncIterable<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const bytes of body) {
    text += decoder.decode(bytes, { stream: true });
    if (text.length > MAX_ERROR_BODY_BYTES) break;
  }
  return text;
}

function toOpenError(failure: { error: unknown; parent: AbortSignal; deploymentId: string }): RouterError {
  if (failure.error instanceof RouterError) return failure.error;
  if (failure.parent.aborted) {
    const reason: unknown = failure.parent.reason;
    if (reason instanceof RouterError) return reason;
    return new RouterError({
      code: 'CLIENT_CLOSED',
      message: 'client closed the connection',
      cause: failure.error,
    });
  }
  return toErrorFromException(failure.error, failure.deploymentId);
}

function linkAbort(parent: AbortSignal, controller: AbortController): () => void {
  const onAbort = (): void => controller.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  return () => parent.removeEventListener('abort', onAbort);
}

/** Upstream over undici: one keep-alive pool per deployment origin, Nagle off. */
export function createHttpUpstream(options: HttpUpstreamOptions): Upstream {
  const pools = new Map<string, Pool>();
  const poolFor = (deployment: DeploymentConfig): Pool => {
    const origin = new URL(deployment.base_url).origin;
    let pool = pools.get(origin);
    if (pool === undefined) {
      pool = new Pool(origin, {
        connections: Math.max(deployment.max_concurrency, 8),
        keepAliveTimeout: options.keepAliveMs ?? 30_000,
        connect: { noDelay: true },
      });
      pools.set(origin, pool);
    }
    return pool;
  };

  const headersFor = (request: AttemptRequest): Record<string, string> => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'x-request-id': request.requestId,
    };
    const envName = request.deployment.api_key_env;
    const key = envName === undefined ? undefined : options.readSecret(envName);
    if (key !== undefined) headers['authorization'] = `Bearer ${key}`;
    return headers;
  };

  async function open(request: AttemptRequest): Promise<UpstreamAttempt> {
    const { deployment, limits } = request;
    const startedAt = options.clock.now();
    const controller = new AbortController();
    const unlink = linkAbort(request.signal, controller);
    const watchdog = createAttemptWatchdog({
      limits,
      controller,
      clock: options.clock,
      deploymentId: deployment.id,
    });
    const release = (): void => {
      watchdog.stop();
      unlink();
    };
    try {
      const url = new URL(deployment.base_url);
      const response = await poolFor(deployment).request({
        path: `${url.pathname.replace(/\/$/, '')}${request.path}`,
        method: 'POST',
        headers: headersFor(request),
        body: request.body,
        signal: controller.signal,
        // the watchdog times connect_ms precisely; undici's own coarse timer is only a backstop
        headersTimeout: limits.connectMs + 1000,
        bodyTimeout: 0,
      });
      watchdog.onHeaders();
      if (response.statusCode !== 200) {
        const bodyText = await readErrorBody(response.body);
        const retryAfter = response.headers['retry-after'];
        throw toErrorFromStatus({
          status: response.statusCode,
          bodyText,
          retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
          deploymentId: deployment.id,
          now: options.clock.now(),
        });
      }
      const events = readEvents({
        body: response.body,
        watchdog,
        deploymentId: deployment.id,
        signal: controller.signal,
      });
      return {
        headersMs: options.clock.now() - startedAt,
        events: {
          async *[Symbol.asyncIterator]() {
            try {
              yield* events;
            } finally {
              release();
              if (!response.body.destroyed) response.body.destroy();
            }
          },
        },
        abort: () => controller.abort(),
      };
    } catch (error) {
      release();
      throw watchdog.reason() ?? toOpenError({ error, parent: request.signal, deploymentId: deployment.id });
    }
  }

  return {
    open,
    async close() {
      await Promise.all([...pools.values()].map((pool) => pool.close()));
      pools.clear();
    },
  };
}
