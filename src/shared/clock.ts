import type { CancelSignal } from './cancel-signal.js';

/** Time source, injected everywhere time matters so tests can control it. */
export interface Clock {
  /** Wall-clock time in milliseconds since the epoch. */
  now(): number;
}

/** Uniform random number in [0, 1), injected for weighted choice and jitter. */
export type Random = () => number;

/** Resolves after `milliseconds`, or rejects early when `signal` aborts. */
export type Sleep = (milliseconds: number, signal?: CancelSignal) => Promise<void>;

/** Epoch ms with sub-millisecond precision (performance.timeOrigin + performance.now()). */
export const systemClock: Clock = { now: () => performance.timeOrigin + performance.now() };

export const systemRandom: Random = () => Math.random();

/** The abort reason as an Error (an AbortSignal's reason may be any value). */
function toAbortError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(`aborted: ${String(reason)}`);
}

export const systemSleep: Sleep = (milliseconds, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(toAbortError(signal.reason));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(toAbortError(signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** A clock whose time only moves when a test says so. */
export interface ManualClock extends Clock {
  set(milliseconds: number): void;
  advance(milliseconds: number): void;
}

export function createManualClock(start = 0): ManualClock {
  let current = start;
  return {
    now: () => current,
    set: (milliseconds) => {
      current = milliseconds;
    },
    advance: (milliseconds) => {
      current += milliseconds;
    },
  };
}
