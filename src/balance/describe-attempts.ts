import type { AttemptRecord } from './route-plan.js';

/** `id: OUTCOME (message)` per attempt, for the message of the error that ends a request. */
export function describeAttempts(attempts: readonly AttemptRecord[]): string {
  return attempts
    .map((attempt) => `${attempt.deploymentId}: ${attempt.outcome} (${attempt.message})`)
    .join('; ');
}
