import { RouterError } from '../shared/errors.js';
import type { Clock } from '../shared/clock.js';
import type { AttemptLimits } from './upstream.js';
import type { CancelController } from '../shared/cancel-signal.js';

/**
 * Timers of one attempt: time to first content, idle gaps, and the total deadline. When one fires
 * it aborts the attempt's controller with a RouterError naming the limit. Always call `stop()`.
 */
export interface AttemptWatchdog {
  /** Call when the response headers arrive: stops the connect timer. */
  onHeaders(): void;
  /** Call on every chunk; `content` = the chunk carried content. */
  onChunk(content: boolean): void;
  /**
   * Call while the body is not read because its reader is behind (a client that does not read): the
   * idle limit stops, since the deployment cannot send; `onResume` starts it again from then.
   */
  onPause(): void;
  onResume(): void;
  /** The error a timer produced, if one fired. */
  reason(): RouterError | undefined;
  stop(): void;
}

export interface WatchdogOptions {
  limits: AttemptLimits;
  controller: CancelController;
  clock: Clock;
  deploymentId: string;
}

type Limit = 'connect' | 'deadline' | 'ttft' | 'idle';

function toTimeoutError(limit: Limit, options: WatchdogOptions): RouterError {
  const { limits, deploymentId } = options;
  switch (limit) {
    case 'connect':
      return new RouterError({
        code: 'UPSTREAM_CONNECT_TIMEOUT',
        message: `${deploymentId}: no response headers within ${limits.connectMs} ms`,
        retryable: true,
      });
    case 'deadline':
      return new RouterError({
        code: 'DEADLINE_EXCEEDED',
        message: `${deploymentId}: total deadline reached`,
        retryable: false,
      });
    case 'ttft':
      return new RouterError({
        code: 'UPSTREAM_TTFT_TIMEOUT',
        message: `${deploymentId}: no first token within ${limits.ttftMs} ms`,
        retryable: true,
      });
    case 'idle':
      return new RouterError({
        code: 'UPSTREAM_IDLE_TIMEOUT',
        message: `${deploymentId}: stream idle for ${limits.idleMs} ms`,
        retryable: true,
      });
  }
}

/**
 * One native timer for all four limits, armed for the earliest one. A chunk only moves the idle
 * limit's due time; the timer notices when it fires and re-arms for the difference, so a stream
 * costs no timer operation per chunk. A due time that moves earlier (the first content starts the
 * idle limit) re-arms at once.
 */
export function createAttemptWatchdog(options: WatchdogOptions): AttemptWatchdog {
  const { limits, controller, clock } = options;
  const startedAt = clock.now();
  /** Due times in clock ms; Infinity = not running. */
  const due: Record<Limit, number> = {
    connect: startedAt + limits.connectMs,
    deadline: limits.deadlineAt,
    ttft: startedAt + limits.ttftMs,
    idle: Infinity,
  };
  let fired: RouterError | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** The idle limit was running when the read paused. */
  let idleHeld = false;
  /** The earliest due time when the timer was armed. */
  let armedFor = Infinity;
  const earliest = (): { limit: Limit; at: number } => {
    let limit: Limit = 'connect';
    for (const name of ['deadline', 'ttft', 'idle'] as const) if (due[name] < due[limit]) limit = name;
    return { limit, at: due[limit] };
  };
  const arm = (delayMs: number): void => {
    armedFor = earliest().at;
    timer = setTimeout(onTimer, Math.max(0, delayMs));
  };
  function onTimer(): void {
    timer = undefined;
    const next = earliest();
    // The due time moved later since the timer was armed (chunks kept coming): wait the difference.
    if (next.at > armedFor && next.at !== Infinity) return arm(next.at - armedFor);
    if (next.at === Infinity || fired !== undefined) return;
    fired = toTimeoutError(next.limit, options);
    controller.abort(fired);
  }
  const rearmIfEarlier = (): void => {
    if (fired !== undefined || earliest().at >= armedFor) return;
    clearTimeout(timer);
    arm(earliest().at - clock.now());
  };
  arm(earliest().at - startedAt);
  return {
    onHeaders() {
      due.connect = Infinity;
    },
    onChunk(content) {
      if (idleHeld) return;
      if (due.idle !== Infinity) {
        due.idle = clock.now() + limits.idleMs;
        return;
      }
      if (!content) return;
      due.ttft = Infinity;
      due.idle = clock.now() + limits.idleMs;
      rearmIfEarlier();
    },
    onPause() {
      idleHeld = due.idle !== Infinity;
      due.idle = Infinity;
    },
    onResume() {
      if (!idleHeld) return;
      idleHeld = false;
      due.idle = clock.now() + limits.idleMs;
      rearmIfEarlier();
    },
    reason: () => fired,
    stop() {
      clearTimeout(timer);
      timer = undefined;
      idleHeld = false;
      due.connect = due.deadline = due.ttft = due.idle = Infinity;
    },
  };
}
