import { RouterError } from '../shared/errors.js';
import { describeAttempts } from './describe-attempts.js';
import type { AttemptRecord } from './route-plan.js';

/** Under this much time left, in ms, no other attempt can start: timers are not finer than 1 ms. */
const LAST_MS = 1;

export interface DeadlineInput {
  attempts: readonly AttemptRecord[];
  /** The tier's total_ms, for the message. */
  totalMs: number;
  /** Epoch ms. */
  deadlineAt: number;
  now: number;
  /** The failure of the last attempt. */
  cause: RouterError;
}

/** DEADLINE_EXCEEDED (504) when a failed attempt used up the request's total time, else undefined. */
export function toDeadlineError(input: DeadlineInput): RouterError | undefined {
  if (input.deadlineAt - input.now > LAST_MS) return undefined;
  return new RouterError({
    code: 'DEADLINE_EXCEEDED',
    message: `total deadline of ${input.totalMs} ms reached: ${describeAttempts(input.attempts)}`,
    cause: input.cause,
  });
}
