import type { Clock } from '../shared/clock.js';

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface CircuitBreakerOptions {
  clock: Clock;
  /** Consecutive failures that open the circuit. */
  failureThreshold: number;
  /** How long the circuit stays open before one probe is let through, ms. */
  openMs: number;
}

export interface CircuitBreaker {
  /** True when a call may go out now; in half-open state only the first caller gets true. */
  allow(): boolean;
  succeed(): void;
  fail(): void;
  state(): BreakerState;
}

/** Skips a failing dependency for a while, then lets one probe test it (half-open). */
export function createCircuitBreaker(options: CircuitBreakerOptions): CircuitBreaker {
  let failures = 0;
  let openUntil = 0;
  let probing = false;
  const state = (): BreakerState => {
    if (failures < options.failureThreshold) return 'closed';
    return options.clock.now() < openUntil ? 'open' : 'half_open';
  };
  return {
    allow() {
      const current = state();
      if (current === 'closed') return true;
      if (current === 'open' || probing) return false;
      probing = true;
      return true;
    },
    succeed() {
      failures = 0;
      probing = false;
    },
    fail() {
      failures += 1;
      probing = false;
      if (failures >= options.failureThreshold) openUntil = options.clock.now() + options.openMs;
    },
    state,
  };
}
