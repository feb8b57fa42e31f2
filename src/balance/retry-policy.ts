import type { Random } from '../shared/clock.js';

export interface BackoffInput {
  /** Retry round, 0 for the first wait. */
  round: number;
  baseMs: number;
  maxMs: number;
  random: Random;
  /** Largest Retry-After among the failures that invite a retry, in seconds. */
  retryAfterSeconds: number | undefined;
  retryAfterCapMs: number;
}

/**
 * Wait before another round over the candidates: exponential backoff with full jitter
 * (https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/), never shorter than a
 * Retry-After the upstream asked for (capped). Returns undefined when Retry-After is above the cap:
 * waiting that long is not worth it.
 */
export function toBackoffMs(input: BackoffInput): number | undefined {
  const ceiling = Math.min(input.maxMs, input.baseMs * 2 ** input.round);
  const jittered = input.random() * ceiling;
  if (input.retryAfterSeconds === undefined) return jittered;
  const requested = input.retryAfterSeconds * 1000;
  if (requested > input.retryAfterCapMs) return undefined;
  return Math.max(requested, jittered);
}
