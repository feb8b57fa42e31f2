import type { Clock } from '../shared/clock.js';

/** What the HTTP edge has seen: requests started so far, and those not yet answered. */
export interface Activity {
  started: number;
  inFlight: number;
}

export interface QuietSettlerOptions {
  clock: Clock;
  /** How long nothing may start or be in flight before the process counts as quiet, ms. */
  quietMs: number;
  readActivity: () => Activity;
  /** Run once per quiet spell that follows activity. */
  settle: () => void;
}

export interface QuietSettler {
  /** Looks at the activity now; runs `settle` (and returns true) when a busy spell has just gone quiet. */
  check(): boolean;
}

/**
 * Notices the end of a busy spell: `settle` runs once when no request has started and none has been
 * in flight for `quietMs`, and not again until requests have come and gone once more. A process that
 * never gets a request settles never (start-up releases its own memory before listening).
 */
export function createQuietSettler(options: QuietSettlerOptions): QuietSettler {
  const { clock, quietMs } = options;
  let seen = options.readActivity().started;
  let busyAt = clock.now();
  let settled = true;
  return {
    check() {
      const now = clock.now();
      const activity = options.readActivity();
      if (activity.started !== seen || activity.inFlight > 0) {
        seen = activity.started;
        busyAt = now;
        settled = false;
        return false;
      }
      if (settled || now - busyAt < quietMs) return false;
      settled = true;
      options.settle();
      return true;
    },
  };
}

/** Checks every `intervalMs` on an unreferenced timer (it never keeps the process alive). */
export function startQuietSettler(options: QuietSettlerOptions & { intervalMs: number }): () => void {
  const settler = createQuietSettler(options);
  const timer = setInterval(() => settler.check(), options.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
