import { createCancelController, type CancelSignal } from '../shared/cancel-signal.js';
import type { Clock, Sleep } from '../shared/clock.js';
import { RouterError } from '../shared/errors.js';

/** Seconds a refused or stopped client is told to wait (Retry-After): any other instance can serve it now. */
const RETRY_AFTER_SECONDS = 1;

/** The error of a request refused or stopped by the drain (503, Retry-After). */
export function toShuttingDownError(message: string): RouterError {
  return new RouterError({ code: 'SHUTTING_DOWN', message, retryAfterSeconds: RETRY_AFTER_SECONDS });
}

export interface DrainOptions {
  clock: Clock;
  sleep: Sleep;
  /** Called once when the drain begins: stop accepting connections, close the idle ones. */
  onStart: () => void;
  /**
   * How long requests stopped at the end of the grace period get to write their error and end, in
   * milliseconds; what is still open then is cut. @default 2000
   */
  abortWaitMs?: number;
}

/** What a drain found and did. */
export interface DrainOutcome {
  /** Requests in flight when the drain began. */
  inFlightAtStart: number;
  /** Requests still running when the grace period ended, stopped with SHUTTING_DOWN. */
  stopped: number;
  /** Requests that had not ended even after being stopped (their connections are cut). */
  leftOver: number;
  /** From the start of the drain to its end, in milliseconds. */
  durationMs: number;
}

/** The part of a drain the HTTP edge sees. */
export interface DrainGate {
  /** True from the start of the drain: new requests are refused, answers close their connections. */
  isDraining(): boolean;
  /** Aborted with SHUTTING_DOWN when the grace period ends: requests still running stop. */
  readonly signal: CancelSignal;
  /** Counts a request as in flight until the returned function is called (once its response closed). */
  track(): () => void;
}

export interface Drain extends DrainGate {
  /**
   * Begins the drain (once; later calls get the same promise): `onStart`, then waits up to `graceMs`
   * for the requests in flight, stops the rest and waits up to `abortWaitMs` for them to end.
   */
  drain(graceMs: number): Promise<DrainOutcome>;
  /** Requests tracked since the drain was made, and those in flight now. */
  activity(): RequestActivity;
}

export interface RequestActivity {
  started: number;
  inFlight: number;
}

/**
 * A rolling restart without cut answers: the drain refuses new work, lets the requests in
 * flight finish within the grace period, then stops what remains with SHUTTING_DOWN (a committed stream
 * ends with the in-band error event, an uncommitted request gets the 503). Time comes from `clock` and
 * `sleep`, so the tests run it on a manual clock.
 */
export function createDrain(options: DrainOptions): Drain {
  const { clock, sleep } = options;
  const stop = createCancelController();
  let inFlight = 0;
  let tracked = 0;
  let draining: Promise<DrainOutcome> | undefined;
  let started = false;
  let onIdle: (() => void) | undefined;

  const track = (): (() => void) => {
    inFlight += 1;
    tracked += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      inFlight -= 1;
      if (inFlight === 0) onIdle?.();
    };
  };

  /** Resolves when nothing is in flight or after `milliseconds`, whichever comes first. */
  async function waitIdle(milliseconds: number): Promise<void> {
    if (inFlight === 0 || milliseconds <= 0) return;
    const timer = createCancelController();
    const idle = new Promise<void>((resolve) => (onIdle = resolve));
    await Promise.race([idle, sleep(milliseconds, timer.signal).catch(() => undefined)]);
    onIdle = undefined;
    timer.abort();
  }

  async function run(graceMs: number): Promise<DrainOutcome> {
    const startedAt = clock.now();
    const inFlightAtStart = inFlight;
    options.onStart();
    await waitIdle(graceMs);
    const stopped = inFlight;
    if (stopped > 0) {
      stop.abort(toShuttingDownError(`autotier is shutting down: the ${graceMs} ms grace period ended`));
      await waitIdle(options.abortWaitMs ?? 2000);
    }
    return { inFlightAtStart, stopped, leftOver: inFlight, durationMs: clock.now() - startedAt };
  }

  return {
    isDraining: () => started,
    signal: stop.signal,
    track,
    activity: () => ({ started: tracked, inFlight }),
    drain(graceMs) {
      if (draining === undefined) {
        started = true;
        draining = run(graceMs);
      }
      return draining;
    },
  };
}
