import { RouterError } from '../shared/errors.js';
import type { Clock } from '../shared/clock.js';
import type { AttemptLimits } from './upstream.js';

/**
 * Timers of one attempt: time to first content, idle gaps, and the total deadline. When one fires
 * it aborts the attempt's controller with a RouterError naming the limit. Always call `stop()`.
 */
export interface AttemptWatchdog {
  /** Call when the response headers arrive: stops the connect timer. */
  onHeaders(): void;
  /** Call on every chunk; `content` = the chunk carried content. */
  onChunk(content: boolean): void;
  /** The error a timer produced, if one fired. */
  reason(): RouterError | undefined;
  stop(): void;
}

export interface WatchdogOptions {
  limits: AttemptLimits;
  controller: AbortController;
  clock: Clock;
  deploymentId: string;
}

export function createAttemptWatchdog(options: WatchdogOptions): AttemptWatchdog {
  const { limits, controller, clock, deploymentId } = options;
  let fired: RouterError | undefined;
  let contentSeen = false;
  const fire = (error: RouterError): void => {
    if (fired !== undefined) return;
    fired = error;
    controller.abort(error);
  };
  // A native timer: undici's headersTimeout ticks every ~0.5 s and may be a second late.
  const connectTimer = setTimeout(
    () =>
      fire(
        new RouterError({
          code: 'UPSTREAM_CONNECT_TIMEOUT',
          message: `${deploymentId}: no response headers within ${limits.connectMs} ms`,
          retryable: true,
        }),
      ),
    limits.connectMs,
  );
  const deadlineTimer = setTimeout(
    () =>
      fire(
        new RouterError({
          code: 'DEADLINE_EXCEEDED',
          message: `${deploymentId}: total deadline reached`,
          retryable: false,
        }),
      ),
    Math.max(0, limits.deadlineAt - clock.now()),
  );
  let phaseTimer = setTimeout(
    () =>
      fire(
        new RouterError({
          code: 'UPSTREAM_TTFT_TIMEOUT',
          message: `${deploymentId}: no first token within ${limits.ttftMs} ms`,
          retryable: true,
        }),
      ),
    limits.ttftMs,
  );
  const startIdle = (): void => {
    clearTimeout(phaseTimer);
    phaseTimer = setTimeout(
      () =>
        fire(
          new RouterError({
            code: 'UPSTREAM_IDLE_TIMEOUT',
            message: `${deploymentId}: stream idle for ${limits.idleMs} ms`,
            retryable: true,
          }),
        ),
      limits.idleMs,
    );
  };
  return {
    onHeaders: () => clearTimeout(connectTimer),
    onChunk(content) {
      if (contentSeen) phaseTimer.refresh();
      else if (content) {
        contentSeen = true;
        startIdle();
      }
    },
    reason: () => fired,
    stop() {
      clearTimeout(connectTimer);
      clearTimeout(deadlineTimer);
      clearTimeout(phaseTimer);
    },
  };
}
