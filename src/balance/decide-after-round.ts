import type { RetryConfig } from '../config/table-part-schemas.js';
import type { Random } from '../shared/clock.js';
import { RouterError } from '../shared/errors.js';
import { describeAttempts } from './describe-attempts.js';
import type { FailureNotes } from './note-failure.js';
import { toBackoffMs } from './retry-policy.js';
import type { AttemptRecord, RoutePlan } from './route-plan.js';

export interface AfterRoundInput {
  tier: RoutePlan['tier'];
  attempts: readonly AttemptRecord[];
  /** Upstream calls made so far. */
  calls: number;
  notes: FailureNotes;
  /** The round that just ended, 0 for the first. */
  round: number;
  retry: RetryConfig;
  random: Random;
  /** Epoch ms. */
  now: number;
  deadlineAt: number;
}

/** The wait before another round over the retryable candidates, or the error that ends the request. */
export type AfterRound = { wait: number } | { error: RouterError };

/**
 * After a round without an answer: a context-length rejection ends the request as such; a 429 from a
 * group's only deployment earns another round after a backoff, when calls are left and the wait ends
 * before the deadline; anything else ends it with ALL_DEPLOYMENTS_FAILED (503, Retry-After passed on).
 */
export function decideAfterRound(input: AfterRoundInput): AfterRound {
  const { attempts, notes, retry } = input;
  if (attempts.at(-1)?.outcome === 'UPSTREAM_CONTEXT_LENGTH') {
    const message = `no deployment with a larger context window is left: ${describeAttempts(attempts)}`;
    return { error: new RouterError({ code: 'UPSTREAM_CONTEXT_LENGTH', message }) };
  }
  const wait =
    notes.retryable.length > 0 && input.calls < retry.max_attempts
      ? toBackoffMs({
          round: input.round,
          baseMs: retry.backoff_base_ms,
          maxMs: retry.backoff_max_ms,
          random: input.random,
          retryAfterSeconds: notes.retryAfterSeconds,
          retryAfterCapMs: retry.retry_after_cap_ms,
        })
      : undefined;
  if (wait !== undefined && input.now + wait < input.deadlineAt) return { wait };
  return { error: toAllFailedError(input) };
}

function toAllFailedError(input: AfterRoundInput): RouterError {
  const { attempts, notes } = input;
  const detail = attempts.length === 0 ? 'no eligible deployment' : describeAttempts(attempts);
  return new RouterError({
    code: 'ALL_DEPLOYMENTS_FAILED',
    message: `all deployments for tier ${input.tier} failed: ${detail}`,
    ...(notes.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: notes.retryAfterSeconds }),
  });
}
