import type { ExecuteResult } from './balancer.js';
import { isContentFault } from './balancer-faults.js';
import {
  bookFailure,
  closeFailure,
  recordFailedCall,
  recordSkip,
  waitForRequest,
  type FailedCall,
  type Parts,
} from './balancer-run.js';
import {
  decideRetryInPlace,
  NOTHING_SPENT,
  type InPlaceSpent,
  type RetryInPlace,
} from './decide-retry-in-place.js';
import { readInPlaceState } from './read-in-place-state.js';
import type { RequestRun } from './request-run.js';
import type { Candidate } from './to-candidates.js';

/** Calls the same candidate again (the balancer's own `tryCandidate`). */
export type TryAgain = () => Promise<ExecuteResult | undefined>;

/**
 * After a failed call: the same deployment once more when `decideRetryInPlace` says so,
 * else the books as before.
 */
export async function afterFailure(
  parts: Parts,
  run: RequestRun,
  failure: FailedCall & { again: TryAgain },
): Promise<ExecuteResult | undefined> {
  const retry = await toRetryInPlace(parts, run, failure);
  if (retry !== undefined) return retryInPlace(parts, run, { ...failure, ...retry });
  await bookFailure(parts, run, failure);
  return undefined;
}

async function toRetryInPlace(
  parts: Parts,
  run: RequestRun,
  failure: FailedCall,
): Promise<RetryInPlace | undefined> {
  const { candidate } = failure;
  const now = parts.clock.now();
  const state = await readInPlaceState(parts.store, {
    candidate,
    group: run.request.plan.group,
    attempts: run.attempts,
    minimumWindow: run.notes.minimumWindow,
    now,
  });
  return decideRetryInPlace({
    error: failure.error,
    settings: run.request.plan.retryInPlace,
    spent: run.inPlace?.get(candidate.deployment.id) ?? NOTHING_SPENT,
    ...state,
    callsLeft: parts.table().balancer.retry.max_attempts - run.calls,
    untried: toUntriedCount(run, candidate),
    random: parts.random,
    now,
    deadlineAt: run.deadlineAt,
    contentFailedElsewhere:
      isContentFault(failure) &&
      (run.held ?? []).some((held) => held.candidate.deployment.id !== candidate.deployment.id),
  });
}

/** Deployments of the plan that this request has not called yet, `candidate` aside. */
function toUntriedCount(run: RequestRun, candidate: Candidate): number {
  const called = new Set(
    run.attempts.filter((attempt) => attempt.called).map((attempt) => attempt.deploymentId),
  );
  called.add(candidate.deployment.id);
  const { group, fallback } = run.request.plan;
  return new Set([...group, ...fallback].map((deployment) => deployment.id).filter((id) => !called.has(id)))
    .size;
}

/**
 * Waits, then calls the same deployment again. The first failure is recorded but not booked (a bench
 * would make the retry skip the deployment) and its in-flight slot is held through the wait; however
 * the visit ends, one outcome is booked on the deployment.
 */
async function retryInPlace(
  parts: Parts,
  run: RequestRun,
  held: FailedCall & RetryInPlace & { again: TryAgain },
): Promise<ExecuteResult | undefined> {
  const { candidate } = held;
  const id = candidate.deployment.id;
  recordFailedCall(parts, run, held);
  run.inPlace = (run.inPlace ?? new Map<string, InPlaceSpent>()).set(id, held.spent);
  await waitForRequest(parts, run, {
    milliseconds: held.wait,
    message: 'client closed the connection',
  }).catch(async (error: unknown) => {
    await parts.health.onFailure(candidate, held.error);
    throw error;
  });
  const skip = await parts.quotas.reserve(candidate.deployment, run.request.promptTokens);
  if (skip !== undefined) {
    recordSkip(parts, run, { candidate, reason: skip });
    await closeFailure(parts, run, held);
    return undefined;
  }
  await parts.store.addInFlight(id, -1); // the call again takes the held slot
  return held.again();
}
