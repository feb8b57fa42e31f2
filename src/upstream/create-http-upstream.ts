import { Pool, type Dispatcher } from 'undici';
import type { DeploymentConfig } from '../config/routing-table-schema.js';
import type { Clock } from '../shared/clock.js';
import { RouterError } from '../shared/errors.js';
import { createAttemptWatchdog, type AttemptWatchdog } from './attempt-watchdog.js';
import { createEventQueue } from './event-queue.js';
import { createEventReader } from './event-reader.js';
import { toErrorFromException, toErrorFromStatus } from './translate-error.js';
import type { AttemptRequest, Upstream, UpstreamAttempt } from './upstream.js';
import { createCancelController, type CancelController, type CancelSignal } from '../shared/cancel-signal.js';

export interface HttpUpstreamOptions {
  clock: Clock;
  /** Reads an API key from the environment by variable name. */
  readSecret: (name: string) => string | undefined;
  /** Keep-alive of idle pooled sockets, in ms. @default 30000 */
  keepAliveMs?: number;
}

/** Longest upstream error body read, in bytes: enough for any message, bounded for a hostile server. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The error of an aborted signal: its RouterError reason, or CLIENT_CLOSED; undefined when not aborted. */
function toCancelError(signal: CancelSignal, error: unknown): RouterError | undefined {
  if (!signal.aborted) return undefined;
  const reason: unknown = signal.reason;
  if (reason instanceof RouterError) return reason;
  return new RouterError({ code: 'CLIENT_CLOSED', message: 'client closed the connection', cause: error });
}

function toOpenError(failure: { error: unknown; parent: CancelSignal; deploymentId: string }): RouterError {
  if (failure.error instanceof RouterError) return failure.error;
  return (
    toCancelError(failure.parent, failure.error) ?? toErrorFromException(failure.error, failure.deploymentId)
  );
}

/** The error of a body that broke after status 200: a timer, the client, or the connection. */
function toReadError(failure: {
  error: unknown;
  watchdog: AttemptWatchdog;
  signal: CancelSignal;
  deploymentId: string;
}): RouterError {
  const fired = failure.watchdog.reason();
  if (fired !== undefined) return fired;
  if (failure.error instanceof RouterError) return failure.error;
  const cancelled = toCancelError(failure.signal, failure.error);
  if (cancelled !== undefined) return cancelled;
  return new RouterError({
    code: 'UPSTREAM_STREAM_CUT',
    message: `${failure.deploymentId}: stream broken (${(failure.error as Error).message})`,
    retryable: true,
    cause: failure.error,
  });
}

function linkAbort(parent: CancelSignal, controller: CancelController): () => void {
  const onAbort = (): void => controller.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  return () => parent.removeEventListener('abort', onAbort);
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

  /**
   * One attempt over undici's dispatch API: the body's bytes are parsed into events in the data
   * callback and handed to the reader through an event queue, with no stream or iterator objects
   * in between (they were a fifth of the CPU of a request in the issue 8 profile).
   */
  function open(request: AttemptRequest): Promise<UpstreamAttempt> {
    const { deployment, limits } = request;
    const startedAt = options.clock.now();
    const controller = createCancelController();
    const unlink = linkAbort(request.signal, controller);
    const watchdog = createAttemptWatchdog({
      limits,
      controller,
      clock: options.clock,
      deploymentId: deployment.id,
    });
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      watchdog.stop();
      unlink();
    };
    return new Promise<UpstreamAttempt>((resolve, reject) => {
      let dispatchController: Dispatcher.DispatchController | undefined;
      const abortDispatch = (): void => {
        const reason: unknown = controller.signal.reason;
        dispatchController?.abort(reason instanceof Error ? reason : new Error('attempt aborted'));
      };
      controller.signal.addEventListener('abort', abortDispatch, { once: true });
      const events = createEventQueue({
        pause: () => dispatchController?.pause(),
        resume: () => dispatchController?.resume(),
        onClose: () => {
          release();
          // the reader stopped before the body ended: free the connection
          if (!bodyEnded) controller.abort();
        },
      });
      const reader = createEventReader({ watchdog, deploymentId: deployment.id });
      /** Set for a status other than 200: the error body is collected, then the attempt rejects. */
      let errorStatus: { status: number; retryAfter: string | undefined; text: string } | undefined;
      let opened = false;
      let bodyEnded = false;
      const failOpen = (error: unknown): void => {
        release();
        controller.signal.removeEventListener('abort', abortDispatch);
        reject(
          watchdog.reason() ?? toOpenError({ error, parent: request.signal, deploymentId: deployment.id }),
        );
      };
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(dispatch) {
          dispatchController = dispatch;
          if (controller.signal.aborted) abortDispatch();
        },
        onResponseStart(_dispatch, statusCode, headers) {
          watchdog.onHeaders();
          if (statusCode !== 200) {
            const retryAfter = headers['retry-after'];
            errorStatus = {
              status: statusCode,
              retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
              text: '',
            };
            return;
          }
          opened = true;
          resolve({
            headersMs: options.clock.now() - startedAt,
            events,
            abort: () => {
              controller.abort();
              events.fail(new RouterError({ code: 'CLIENT_CLOSED', message: 'attempt stopped' }));
            },
          });
        },
        onResponseData(dispatch, chunk) {
          if (errorStatus !== undefined) {
            if (errorStatus.text.length < MAX_ERROR_BODY_BYTES) errorStatus.text += chunk.toString('utf8');
            return;
          }
          const read = reader.push(chunk);
          events.push(read.events);
          if (read.error !== undefined) {
            events.fail(read.error);
            dispatch.abort(read.error);
          }
        },
        onResponseEnd() {
          bodyEnded = true;
          controller.signal.removeEventListener('abort', abortDispatch);
          if (errorStatus !== undefined) {
            failOpen(
              toErrorFromStatus({
                status: errorStatus.status,
                bodyText: errorStatus.text,
                retryAfter: errorStatus.retryAfter,
                deploymentId: deployment.id,
                now: options.clock.now(),
              }),
            );
            return;
          }
          const fired = watchdog.reason();
          const cut = fired ?? reader.finish();
          if (cut === undefined) events.end();
          else events.fail(cut);
        },
        onResponseError(_dispatch, error) {
          bodyEnded = true;
          controller.signal.removeEventListener('abort', abortDispatch);
          if (!opened) return failOpen(error);
          events.fail(
            toReadError({ error, watchdog, signal: controller.signal, deploymentId: deployment.id }),
          );
        },
      };
      try {
        const { pool, basePath } = targetFor(deployment);
        pool.dispatch(
          {
            path: `${basePath}${request.path}`,
            method: 'POST',
            headers: headersFor(request),
            body: request.body,
            // the watchdog times connect_ms precisely; undici's own coarse timer is only a backstop
            headersTimeout: limits.connectMs + 1000,
            bodyTimeout: 0,
          },
          handler,
        );
      } catch (error) {
        failOpen(error);
      }
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
