import { createManualClock, type ManualClock, type Sleep } from '../../src/shared/clock.js';

/**
 * A clock and a sleep that only move when the test says so: `sleep` resolves once `advance` has moved
 * the clock past its due time, so retries, backoff and cooldowns run without real waiting.
 */
export interface ManualTime {
  clock: ManualClock;
  sleep: Sleep;
  /** Every wait asked of `sleep`, in ms, in order. */
  sleeps: number[];
  /** Like `sleep`, but not listed in `sleeps`: for fakes that stand for time passing elsewhere. */
  wait: Sleep;
  /** Sleeps not yet resolved or aborted. */
  pending(): number;
  /**
   * Moves the clock forward by `milliseconds`, stopping at each sleeper's due time to wake it and let
   * the code after it run (so it reads the clock as it was when it woke).
   */
  advance(milliseconds: number): Promise<void>;
  /**
   * Wakes each sleeper in due order until `done` settles, moving the clock exactly to each due time;
   * throws when nothing is left to wake and `done` still waits (it waits on something else).
   */
  runUntil<T>(done: Promise<T>): Promise<T>;
}

interface Sleeper {
  due: number;
  wake(): void;
}

/** Lets every queued promise reaction run (the code after an awaited sleep, store calls, ...). */
export async function flushPromises(): Promise<void> {
  for (let index = 0; index < 5; index += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

export function createManualTime(start = 1_000_000): ManualTime {
  const clock = createManualClock(start);
  const sleepers: Sleeper[] = [];
  const sleeps: number[] = [];
  // rejects as systemSleep does: with the abort reason when it is an Error
  const toAbortError = (reason: unknown): Error => (reason instanceof Error ? reason : new Error('aborted'));
  const wait: Sleep = (milliseconds, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted === true) return reject(toAbortError(signal.reason));
      const sleeper: Sleeper = { due: clock.now() + milliseconds, wake: () => resolve() };
      sleepers.push(sleeper);
      signal?.addEventListener('abort', () => {
        const index = sleepers.indexOf(sleeper);
        if (index !== -1) sleepers.splice(index, 1);
        reject(toAbortError(signal.reason));
      });
    });
  const sleep: Sleep = (milliseconds, signal) => {
    sleeps.push(milliseconds);
    return wait(milliseconds, signal);
  };
  async function advance(milliseconds: number): Promise<void> {
    const target = clock.now() + milliseconds;
    await flushPromises();
    for (;;) {
      const next = sleepers.filter((sleeper) => sleeper.due <= target).sort((a, b) => a.due - b.due)[0];
      if (next === undefined) break;
      sleepers.splice(sleepers.indexOf(next), 1);
      clock.set(Math.max(clock.now(), next.due));
      next.wake();
      await flushPromises();
    }
    clock.set(target);
    await flushPromises();
  }
  async function runUntil<T>(done: Promise<T>): Promise<T> {
    let settled = false;
    const watched = done.finally(() => (settled = true));
    watched.catch(() => undefined);
    for (await flushPromises(); !settled; await flushPromises()) {
      const due = Math.min(...sleepers.map((sleeper) => sleeper.due));
      if (due === Infinity) throw new Error('runUntil: nothing left to wake, and the promise still waits');
      await advance(Math.max(0, due - clock.now()));
    }
    return watched;
  }
  return { clock, sleep, wait, sleeps, pending: () => sleepers.length, advance, runUntil };
}
