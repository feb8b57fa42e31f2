import { systemClock, type Clock } from '../../src/shared/clock.js';

/**
 * Real time plus an offset the test moves forward: timers (connect_ms, ttft_ms) still run on real
 * time, while cooldowns, probes and windows read this clock, so a test jumps over a cooldown instead
 * of sleeping through it, and a slow machine cannot let a cooldown lapse before the test is done with it.
 */
export interface ShiftedClock extends Clock {
  /** Moves the clock `milliseconds` ahead of real time (cumulative); call between requests only. */
  advance(milliseconds: number): void;
}

export function createShiftedClock(base: Clock = systemClock): ShiftedClock {
  let offset = 0;
  return {
    now: () => base.now() + offset,
    advance: (milliseconds) => {
      offset += milliseconds;
    },
  };
}
