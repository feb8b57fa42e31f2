import { toRouterError, type RouterError } from '../shared/errors.js';
import type { UpstreamEvent } from '../upstream/upstream.js';
import type { ExecuteResult } from './balancer.js';
import {
  callCandidate,
  recordAnswer,
  recordFailedCall,
  recordSkip,
  toSkip,
  type AnsweredAttempt,
  type Parts,
} from './balancer-run.js';
import {
  openContinuation,
  relabelLeg,
  toContinuationChain,
  toContinuingRest,
  type ContinuationDeps,
  type ContinuationLeg,
  type LegOpening,
} from './continue-answer.js';
import { orderCandidates } from './order-candidates.js';
import type { RequestRun } from './request-run.js';
import type { ContinuationRecord } from './relabel-continuation.js';
import type { Candidate } from './to-candidates.js';
import { toCommittedRest, type CommittedRest } from './to-committed-rest.js';

/** Nothing after a buffered attempt: its whole answer is in `head`. */
const emptyEvents: AsyncIterable<UpstreamEvent[]> = {
  async *[Symbol.asyncIterator]() {
    // nothing after a buffered attempt
  },
};

/** The result of an answered request: the head, and for a stream the rest, continued where it breaks. */
export function toResult(parts: Parts, run: RequestRun, answer: AnsweredAttempt): ExecuteResult {
  const { candidate, committed } = answer;
  const continuations = answer.continuations ?? [];
  const tail =
    run.request.commit === 'complete'
      ? { rest: emptyEvents, cancel: () => undefined }
      : toStreamRest(parts, run, { ...answer, continuations });
  return {
    deployment: candidate.deployment,
    attempts: run.attempts,
    fallbacks: run.attempts.filter((attempt) => attempt.called && attempt.fallback).length,
    upstreamMs: run.upstreamMs,
    ttftMs: committed.ttftMs,
    firstTokenAt: answer.startedAt + committed.ttftMs,
    head: committed.head,
    continuations,
    ...tail,
  };
}

/** The rest of a committed stream, settled on its deployment's books. */
export function toSettledRest(parts: Parts, leg: ContinuationLeg): CommittedRest {
  const { candidate, committed } = leg;
  return toCommittedRest(committed, {
    onSuccess: (completionTokens) =>
      parts.health.onSuccess(candidate, { ttftMs: committed.ttftMs, completionTokens }),
    onFailure: (error) => parts.health.onFailure(candidate, error),
  });
}

/**
 * The rest of a committed stream; when the request can be continued and a continuation-capable
 * deployment is in its plan, one that goes on from another deployment if it breaks (the relay of a
 * stream that cannot be continued stays as lean as before).
 */
export function toStreamRest(
  parts: Parts,
  run: RequestRun,
  answer: AnsweredAttempt & { continuations: ContinuationRecord[] },
): CommittedRest {
  const first = toSettledRest(parts, answer);
  const { plan } = run.request;
  const id = answer.candidate.deployment.id;
  const capable = [...plan.group, ...plan.fallback].some(
    (deployment) => deployment.continuation && deployment.id !== id,
  );
  if (run.request.toContinuationBody === undefined || !capable) return first;
  const chain = toContinuationChain(answer.candidate, answer.committed.head);
  chain.records = answer.continuations;
  return toContinuingRest({
    deps: toContinuationDeps(parts, run),
    chain,
    first: { candidate: answer.candidate, rest: first },
    toRest: (leg) => toSettledRest(parts, leg),
  });
}

/** What continuing a broken answer needs from this request's run. */
export function toContinuationDeps(parts: Parts, run: RequestRun): ContinuationDeps {
  return {
    request: run.request,
    candidates: () => orderCandidates(parts, run.request.plan),
    mayCall: () =>
      parts.policy().mayCall({ calls: run.calls, deadlineAt: run.deadlineAt, now: parts.clock.now() }),
    open: (candidate, body) => openLeg(parts, run, { candidate, body }),
    report: (event) => {
      parts.onContinuation?.(event);
      const { outcome, ...fields } = event;
      if (outcome === 'continued') parts.logger.info('answer continued on another deployment', fields);
      else parts.logger.warn(`broken answer not continued (${outcome})`, fields);
    },
  };
}

/** One continuation call: checked like any candidate, booked like any attempt. */
export async function openLeg(
  parts: Parts,
  run: RequestRun,
  leg: { candidate: Candidate; body: string },
): Promise<LegOpening> {
  const { candidate } = leg;
  const skip = await toSkip(parts, run, candidate);
  if (skip !== undefined) return { skipped: recordSkip(parts, run, { candidate, reason: skip }) };
  const startedAt = parts.clock.now();
  try {
    const committed = await callCandidate(parts, run, { ...leg, continuation: true });
    await recordAnswer(parts, run, { candidate, committed, startedAt, message: 'continued a broken answer' });
    return { leg: { candidate, committed, startedAt } };
  } catch (thrown) {
    const error = toRouterError(thrown);
    recordFailedCall(parts, run, { candidate, error, startedAt });
    await parts.health.onFailure(candidate, error);
    return { failed: error };
  }
}

/** A buffered answer that broke after its first token, finished by a continuation: the parts joined. */
export async function continueBuffered(
  parts: Parts,
  run: RequestRun,
  broken: { candidate: Candidate; error: RouterError; head: UpstreamEvent[]; startedAt: number },
): Promise<ExecuteResult | undefined> {
  const chain = toContinuationChain(broken.candidate, broken.head);
  const deps = toContinuationDeps(parts, run);
  const leg = await openContinuation(deps, chain, { from: broken.candidate, error: broken.error });
  if (leg === undefined) return undefined;
  const head = [...broken.head, ...relabelLeg(chain, leg.committed.head)];
  const ttftMs = parts.clock.now() - broken.startedAt;
  const committed = Object.assign({}, leg.committed, { head, ttftMs });
  return toResult(parts, run, {
    candidate: broken.candidate,
    committed,
    startedAt: broken.startedAt,
    continuations: chain.records,
  });
}
