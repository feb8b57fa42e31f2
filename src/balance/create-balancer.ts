import type { RoutingTable } from '../config/routing-table-schema.js';
import type { Logger } from '../shared/logger.js';
import type { AttemptSummary } from '../observe/request-summary.js';
import type { Clock, Random, Sleep } from '../shared/clock.js';
import { RouterError, toRouterError } from '../shared/errors.js';
import type { StateStore } from '../state/state-store.js';
import type { Upstream, UpstreamEvent } from '../upstream/upstream.js';
import type { Balancer, ContinuationEvent, ExecuteRequest, ExecuteResult } from './balancer.js';
import {
  openContinuation,
  relabelLeg,
  toContinuationChain,
  toContinuingRest,
  type ContinuationDeps,
  type ContinuationLeg,
  type LegOpening,
} from './continue-answer.js';
import { createDeploymentHealth, type DeploymentHealth } from './create-deployment-health.js';
import { decideAfterRound } from './decide-after-round.js';
import { createQuotaGate, type QuotaGate } from './deployment-quota.js';
import {
  decideRetryInPlace,
  NOTHING_SPENT,
  type InPlaceSpent,
  type RetryInPlace,
} from './decide-retry-in-place.js';
import { NO_FAILURES, noteFailure, type FailureNotes } from './note-failure.js';
import { orderCandidates } from './order-candidates.js';
import { readInPlaceState } from './read-in-place-state.js';
import type { AttemptRecord } from './route-plan.js';
import type { ContinuationRecord } from './relabel-continuation.js';
import { runAttempt, type CommittedAttempt } from './run-attempt.js';
import { toAttemptLimits } from './to-attempt-limits.js';
import type { Candidate } from './to-candidates.js';
import { toCommittedRest, type CommittedRest } from './to-committed-rest.js';
import { toCompletionTokens } from './to-completion-tokens.js';
import { toDeadlineError } from './to-deadline-error.js';

export interface BalancerOptions {
  upstream: Upstream;
  store: StateStore;
  clock: Clock;
  random: Random;
  sleep: Sleep;
  logger: Logger;
  /** Returns the routing table in force; read once per request so reloads never split one. */
  table: () => RoutingTable;
  /** Told about every attempt as it ends (metrics and logs). */
  onAttempt?: (attempt: AttemptSummary) => void;
  /** Told when a deployment is benched (metrics). */
  onCooldown?: (deploymentId: string, reason: string) => void;
  /** Told about every try to continue a broken answer on another deployment (metrics and logs). */
  onContinuation?: (event: ContinuationEvent) => void;
}

/** What every request of one balancer shares. */
interface Parts extends BalancerOptions {
  quotas: QuotaGate;
  health: DeploymentHealth;
}

/** The state of one request across its attempts. */
interface RequestRun {
  request: ExecuteRequest;
  deadlineAt: number;
  attempts: AttemptRecord[];
  /** Time spent waiting on upstreams before the commit point, ms. */
  upstreamMs: number;
  calls: number;
  notes: FailureNotes;
  /** In-place retries spent, by deployment id; made at the first one (most requests never retry). */
  inPlace?: Map<string, InPlaceSpent>;
}

/** The attempt that reached the commit point; `startedAt` in epoch ms. */
interface AnsweredAttempt {
  candidate: Candidate;
  committed: CommittedAttempt;
  startedAt: number;
  /** Switches to other deployments that made this answer (continuation), if any. */
  continuations?: ContinuationRecord[];
}

type AttemptEntry = Omit<AttemptRecord, 'fallback' | 'deploymentId'> & { candidate: Candidate };

/** A call that failed before the commit point; `startedAt` in epoch ms. */
interface FailedCall {
  candidate: Candidate;
  error: RouterError;
  startedAt: number;
}

const emptyEvents: AsyncIterable<UpstreamEvent[]> = {
  async *[Symbol.asyncIterator]() {
    // nothing after a buffered attempt
  },
};

/**
 * Tries the group, then the fallback chain; then, when only Retry-After stood in the way (a group's
 * only deployment answered 429), waits with backoff and tries those again, all within total_ms.
 * The decisions are the pure parts beside this file; the functions here run them against the store.
 */
export function createBalancer(options: BalancerOptions): Balancer {
  const quotas = createQuotaGate(options);
  const parts: Parts = { ...options, quotas, health: createDeploymentHealth({ ...options, quotas }) };
  return { execute: (request) => execute(parts, request) };
}

function startRun(request: ExecuteRequest): RequestRun {
  const deadlineAt = request.startedAt + request.plan.timeouts.total_ms;
  return { request, deadlineAt, attempts: [], upstreamMs: 0, calls: 0, notes: NO_FAILURES };
}

async function execute(parts: Parts, request: ExecuteRequest): Promise<ExecuteResult> {
  const run = startRun(request);
  let candidates: readonly Candidate[] = await orderCandidates(parts, request.plan);
  for (let round = 0; ; round += 1) {
    const result = await runRound(parts, run, candidates);
    if (result !== undefined) return result;
    const next = decideAfterRound({
      ...run,
      tier: request.plan.tier,
      round,
      retry: parts.table().balancer.retry,
      random: parts.random,
      now: parts.clock.now(),
    });
    if ('error' in next) throw next.error;
    candidates = run.notes.retryable;
    run.notes = { ...run.notes, retryable: [] };
    await parts.sleep(next.wait, request.signal).catch((cause: unknown) => {
      throw new RouterError({
        code: 'CLIENT_CLOSED',
        message: 'client closed the connection during backoff',
        cause,
      });
    });
  }
}

/** One pass over the candidates in order; undefined when none answered. */
async function runRound(
  parts: Parts,
  run: RequestRun,
  candidates: readonly Candidate[],
): Promise<ExecuteResult | undefined> {
  const { retry } = parts.table().balancer;
  for (const candidate of candidates) {
    if (run.calls >= retry.max_attempts || run.deadlineAt <= parts.clock.now()) return undefined;
    if (candidate.deployment.context_window <= run.notes.minimumWindow) continue;
    const skip = await toSkip(parts, run, candidate);
    if (skip !== undefined) {
      const outcome = skip.split(' ')[0] ?? 'SKIPPED';
      recordAttempt(parts, run, { candidate, outcome, message: skip, called: false, durationMs: 0 });
      continue;
    }
    const result = await tryCandidate(parts, run, candidate);
    if (result !== undefined) return result;
  }
  return undefined;
}

/** Why a candidate is passed over without a call (cooling down, full, probe taken, quota), or undefined. */
async function toSkip(parts: Parts, run: RequestRun, candidate: Candidate): Promise<string | undefined> {
  const availability = await parts.health.check(candidate, run.request.plan.timeouts.total_ms);
  if (availability.skip !== undefined) return availability.skip;
  const quotaSkip = await parts.quotas.reserve(candidate.deployment, run.request.promptTokens);
  if (quotaSkip !== undefined && availability.probe) await parts.store.releaseProbe(candidate.deployment.id);
  return quotaSkip;
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
    return await bookAnswer(parts, run, { candidate, committed, startedAt });
  } catch (thrown) {
    const error = toRouterError(thrown);
    // a buffered answer that broke after its first token goes on from there where it can
    const broke = run.request.commit === 'complete' && head.some((event) => event.firstContent);
    if (!broke) return afterFailure(parts, run, { candidate, error, startedAt });
    await bookFailure(parts, run, { candidate, error, startedAt });
    return continueBuffered(parts, run, { candidate, error, head, startedAt });
  }
}

/**
 * After a failed call: the same deployment once more when `decideRetryInPlace` says so (issue 18),
 * else the books as before.
 */
async function afterFailure(
  parts: Parts,
  run: RequestRun,
  failure: FailedCall,
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
  held: FailedCall & RetryInPlace,
): Promise<ExecuteResult | undefined> {
  const { candidate } = held;
  const id = candidate.deployment.id;
  recordFailedCall(parts, run, held);
  run.inPlace = (run.inPlace ?? new Map<string, InPlaceSpent>()).set(id, held.spent);
  await parts.sleep(held.wait, run.request.signal).catch(async (cause: unknown) => {
    await parts.health.onFailure(candidate, held.error);
    throw new RouterError({ code: 'CLIENT_CLOSED', message: 'client closed the connection', cause });
  });
  const skip = await parts.quotas.reserve(candidate.deployment, run.request.promptTokens);
  if (skip !== undefined) {
    const outcome = skip.split(' ')[0] ?? 'SKIPPED';
    recordAttempt(parts, run, { candidate, outcome, message: skip, called: false, durationMs: 0 });
    await closeFailure(parts, run, held);
    return undefined;
  }
  await parts.store.addInFlight(id, -1); // tryCandidate takes the held slot again
  return tryCandidate(parts, run, candidate);
}

/** Opens one upstream call with `body` and reads it up to the request's commit point. */
async function callCandidate(
  parts: Parts,
  run: RequestRun,
  call: { candidate: Candidate; body: string; head?: UpstreamEvent[] },
): Promise<CommittedAttempt> {
  const { candidate } = call;
  const { clock } = parts;
  const { request } = run;
  const limits = toAttemptLimits(request.plan.timeouts, { at: run.deadlineAt, now: clock.now() });
  run.calls += 1;
  await parts.store.addInFlight(candidate.deployment.id, 1);
  return runAttempt({
    upstream: parts.upstream,
    clock,
    deployment: candidate.deployment,
    path: request.path,
    body: call.body,
    signal: request.signal,
    limits,
    requestId: request.requestId,
    commit: request.commit,
    ...(call.head === undefined ? {} : { head: call.head }),
  });
}

/** What continuing a broken answer needs from this request's run. */
function toContinuationDeps(parts: Parts, run: RequestRun): ContinuationDeps {
  return {
    request: run.request,
    candidates: () => orderCandidates(parts, run.request.plan),
    mayCall: () =>
      run.calls < parts.table().balancer.retry.max_attempts && run.deadlineAt > parts.clock.now(),
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
async function openLeg(
  parts: Parts,
  run: RequestRun,
  leg: { candidate: Candidate; body: string },
): Promise<LegOpening> {
  const { candidate } = leg;
  const skip = await toSkip(parts, run, candidate);
  if (skip !== undefined) {
    const outcome = skip.split(' ')[0] ?? 'SKIPPED';
    recordAttempt(parts, run, { candidate, outcome, message: skip, called: false, durationMs: 0 });
    return { skipped: outcome };
  }
  const startedAt = parts.clock.now();
  try {
    const committed = await callCandidate(parts, run, leg);
    const durationMs = parts.clock.now() - startedAt;
    run.upstreamMs += durationMs;
    const message = 'continued a broken answer';
    recordAttempt(parts, run, { candidate, outcome: 'OK', message, called: true, durationMs });
    if (run.request.commit === 'complete') {
      const completionTokens = toCompletionTokens(committed.head);
      await parts.health.onSuccess(candidate, { ttftMs: committed.ttftMs, completionTokens });
    }
    return { leg: { candidate, committed, startedAt } };
  } catch (thrown) {
    const error = toRouterError(thrown);
    const durationMs = parts.clock.now() - startedAt;
    run.upstreamMs += durationMs;
    recordAttempt(parts, run, {
      candidate,
      outcome: error.code,
      message: error.message,
      called: true,
      durationMs,
    });
    await parts.health.onFailure(candidate, error);
    return { failed: error };
  }
}

/** A buffered answer that broke after its first token, finished by a continuation: the parts joined. */
async function continueBuffered(
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

/** Books the attempt that reached the commit point (a buffered one is over: its books close now). */
async function bookAnswer(parts: Parts, run: RequestRun, answer: AnsweredAttempt): Promise<ExecuteResult> {
  const { candidate, committed, startedAt } = answer;
  const durationMs = parts.clock.now() - startedAt;
  run.upstreamMs += durationMs;
  recordAttempt(parts, run, { candidate, outcome: 'OK', message: 'answered', called: true, durationMs });
  if (run.request.commit === 'complete') {
    const completionTokens = toCompletionTokens(committed.head);
    await parts.health.onSuccess(candidate, { ttftMs: committed.ttftMs, completionTokens });
  }
  return toResult(parts, run, answer);
}

/** Books a failed attempt and notes what it means for the next ones; throws when it ends the request. */
async function bookFailure(parts: Parts, run: RequestRun, failure: FailedCall): Promise<void> {
  recordFailedCall(parts, run, failure);
  await closeFailure(parts, run, failure);
}

/** Records a failed call on the run (its time included) without booking it on the deployment. */
function recordFailedCall(parts: Parts, run: RequestRun, failure: FailedCall): void {
  const { candidate, error } = failure;
  const durationMs = parts.clock.now() - failure.startedAt;
  run.upstreamMs += durationMs;
  recordAttempt(parts, run, {
    candidate,
    outcome: error.code,
    message: error.message,
    called: true,
    durationMs,
  });
}

/** Books a recorded failure on the deployment and notes it; throws when it ends the request. */
async function closeFailure(parts: Parts, run: RequestRun, failure: FailedCall): Promise<void> {
  const { candidate, error } = failure;
  const { clock } = parts;
  await parts.health.onFailure(candidate, error);
  const deadlineError = toDeadlineError({
    attempts: run.attempts,
    totalMs: run.request.plan.timeouts.total_ms,
    deadlineAt: run.deadlineAt,
    now: clock.now(),
    cause: error,
  });
  if (deadlineError !== undefined) throw deadlineError;
  run.notes = noteFailure(run.notes, candidate, error);
}

/** Records an attempt (or a skipped candidate) on the run and tells the observer. */
function recordAttempt(parts: Parts, run: RequestRun, entry: AttemptEntry): void {
  const { candidate, ...rest } = entry;
  const attempt = { deploymentId: candidate.deployment.id, fallback: candidate.fallback, ...rest };
  run.attempts.push(attempt);
  // not `{ ...attempt, more }`: V8 tenures objects made that way (see http/write-answer.ts)
  parts.onAttempt?.(
    Object.assign({}, attempt, {
      requestId: run.request.requestId,
      tier: run.request.plan.tier,
      attempt: run.attempts.length,
    }),
  );
}

function toResult(parts: Parts, run: RequestRun, answer: AnsweredAttempt): ExecuteResult {
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
function toSettledRest(parts: Parts, leg: ContinuationLeg): CommittedRest {
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
function toStreamRest(
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
