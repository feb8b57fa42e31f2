import { toRouterError } from '../shared/errors.js';
import type { UpstreamEvent } from '../upstream/upstream.js';
import type { ExecuteResult } from './balancer.js';
import { continueBuffered, toResult } from './balancer-answer.js';
import type { FailureState, Next } from './balancer-policy.js';
import {
  bookFailure,
  callCandidate,
  closeFailure,
  recordAnswer,
  recordFailedCall,
  recordSkip,
  toSkip,
  waitForRequest,
  type AnsweredAttempt,
  type FailedCall,
  type Parts,
} from './balancer-run.js';
import { COOLING_OUTCOMES } from './decide-panic.js';
import { NOTHING_SPENT, type InPlaceSpent } from './decide-retry-in-place.js';
import { orderCandidates } from './order-candidates.js';
import { readInPlaceState } from './read-in-place-state.js';
import type { RequestRun } from './request-run.js';
import type { Candidate } from './to-candidates.js';

/**
 * The attempt loop of one request, top to bottom: order the candidates (the group, then the fallback
 * chain); call each in turn; after a failure ask the policy (`parts.policy()`, balancer-policy.ts)
 * whether to call the same deployment again, move on, or stop; after a round without an answer ask
 * it for a backoff and another round over the retryable candidates, or the error that ends the
 * request. When the first round called nothing because everything was cooling down, panic mode calls
 * one cooling deployment anyway. An answer that breaks after its first token is continued elsewhere
 * (balancer-answer.ts).
 */
export async function runAttemptLoop(parts: Parts, run: RequestRun): Promise<ExecuteResult> {
  const { request } = run;
  let candidates: readonly Candidate[] = await orderCandidates(parts, request.plan);
  for (let round = 0; ; round += 1) {
    const result =
      (await runRound(parts, run, candidates)) ??
      (round === 0 ? await runPanic(parts, run, candidates) : undefined);
    if (result !== undefined) return result;
    const next = parts.policy().afterRound({
      ...run,
      tier: request.plan.tier,
      round,
      random: parts.random,
      now: parts.clock.now(),
    });
    if ('error' in next) throw next.error;
    candidates = run.notes.retryable;
    run.notes = { ...run.notes, retryable: [] };
    await waitForRequest(parts, run, {
      milliseconds: next.wait,
      message: 'client closed the connection during backoff',
    });
  }
}

/** One pass over the candidates in order; undefined when none answered. */
async function runRound(
  parts: Parts,
  run: RequestRun,
  candidates: readonly Candidate[],
): Promise<ExecuteResult | undefined> {
  const policy = parts.policy();
  for (const candidate of candidates) {
    if (!policy.mayCall({ calls: run.calls, deadlineAt: run.deadlineAt, now: parts.clock.now() }))
      return undefined;
    if (candidate.deployment.context_window <= run.notes.minimumWindow) continue;
    const skip = await toSkip(parts, run, candidate);
    if (skip !== undefined) {
      recordSkip(parts, run, { candidate, reason: skip });
      continue;
    }
    const result = await tryCandidate(parts, run, candidate);
    if (result !== undefined) return result;
  }
  return undefined;
}

/**
 * Panic mode: when the first round called nothing because every deployment it could use is cooling
 * down, the policy picks one to call anyway; undefined when none is, or it failed too.
 */
async function runPanic(
  parts: Parts,
  run: RequestRun,
  candidates: readonly Candidate[],
): Promise<ExecuteResult | undefined> {
  if (run.calls > 0 || run.deadlineAt <= parts.clock.now()) return undefined;
  const ids = new Set(
    run.attempts
      .filter((attempt) => COOLING_OUTCOMES.has(attempt.outcome))
      .map((attempt) => attempt.deploymentId),
  );
  const cooling = candidates.filter((candidate) => ids.has(candidate.deployment.id));
  const cooldowns = await parts.store.getCooldowns(cooling.map((candidate) => candidate.deployment.id));
  const chosen = parts.policy().panicPick(
    cooling.map((candidate) => ({
      id: candidate.deployment.id,
      until: cooldowns.get(candidate.deployment.id)?.until,
    })),
  );
  const candidate = cooling.find((each) => each.deployment.id === chosen);
  if (candidate === undefined) return undefined;
  const quotaSkip = await parts.quotas.reserve(candidate.deployment, run.request.promptTokens);
  if (quotaSkip !== undefined) return void recordSkip(parts, run, { candidate, reason: quotaSkip });
  return tryCandidate(parts, run, candidate);
}

/** One call to one candidate; returns the result, or undefined after a failure worth going on from. */
async function tryCandidate(
  parts: Parts,
  run: RequestRun,
  candidate: Candidate,
): Promise<ExecuteResult | undefined> {
  const startedAt = parts.clock.now();
  const head: UpstreamEvent[] = [];
  try {
    const body = run.request.toBody(candidate.deployment);
    const committed = await callCandidate(parts, run, { candidate, body, head });
    const answer: AnsweredAttempt = { candidate, committed, startedAt };
    // a buffered answer is over: its books close now
    await recordAnswer(parts, run, { ...answer, message: 'answered' });
    return toResult(parts, run, answer);
  } catch (thrown) {
    const error = toRouterError(thrown);
    // a buffered answer that broke after its first token goes on from there where it can
    const broke = run.request.commit === 'complete' && head.some((event) => event.firstContent);
    if (!broke) return afterFailure(parts, run, { candidate, error, startedAt });
    await bookFailure(parts, run, { candidate, error, startedAt });
    return continueBuffered(parts, run, { candidate, error, head, startedAt });
  }
}

/** Does what the policy says after a failed call: the same deployment again, or the books and on. */
async function afterFailure(
  parts: Parts,
  run: RequestRun,
  failure: FailedCall,
): Promise<ExecuteResult | undefined> {
  const next = parts.policy().onFailure(failure, await toFailureState(parts, run, failure));
  if (next.kind === 'retry-in-place') return retryInPlace(parts, run, { ...failure, ...next });
  await bookFailure(parts, run, { ...failure, next });
  return undefined;
}

/** The facts the policy judges a failed call by: the run's notes and the store's view of its peers. */
async function toFailureState(parts: Parts, run: RequestRun, failure: FailedCall): Promise<FailureState> {
  const { candidate } = failure;
  const now = parts.clock.now();
  const state = await readInPlaceState(parts.store, {
    candidate,
    group: run.request.plan.group,
    attempts: run.attempts,
    minimumWindow: run.notes.minimumWindow,
    now,
  });
  const contentFailedElsewhere =
    parts.policy().isContentFault(failure) &&
    (run.held ?? []).some((held) => held.candidate.deployment.id !== candidate.deployment.id);
  return {
    notes: run.notes,
    inPlace: {
      settings: run.request.plan.retryInPlace,
      spent: run.inPlace?.get(candidate.deployment.id) ?? NOTHING_SPENT,
      ...state,
      calls: run.calls,
      untried: toUntriedCount(run, candidate),
      random: parts.random,
      now,
      deadlineAt: run.deadlineAt,
      contentFailedElsewhere,
    },
  };
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
  held: FailedCall & Extract<Next, { kind: 'retry-in-place' }>,
): Promise<ExecuteResult | undefined> {
  const { candidate, error, startedAt } = held;
  const id = candidate.deployment.id;
  recordFailedCall(parts, run, held);
  run.inPlace = (run.inPlace ?? new Map<string, InPlaceSpent>()).set(id, held.spent);
  await waitForRequest(parts, run, {
    milliseconds: held.wait,
    message: 'client closed the connection',
  }).catch(async (waitError: unknown) => {
    await parts.health.onFailure(candidate, error);
    throw waitError;
  });
  const skip = await parts.quotas.reserve(candidate.deployment, run.request.promptTokens);
  if (skip !== undefined) {
    recordSkip(parts, run, { candidate, reason: skip });
    await closeFailure(parts, run, { candidate, error, startedAt });
    return undefined;
  }
  await parts.store.addInFlight(id, -1); // the call again takes the held slot
  return tryCandidate(parts, run, candidate);
}
