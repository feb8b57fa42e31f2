import type { RoutingTable } from '../config/routing-table-schema.js';
import type { AttemptSummary } from '../observe/request-summary.js';
import type { Clock, Random, Sleep } from '../shared/clock.js';
import { isStopped, RouterError, toRouterError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { StateStore } from '../state/state-store.js';
import type { Upstream, UpstreamEvent } from '../upstream/upstream.js';
import type { ContinuationEvent } from './balancer.js';
import { holdServerError } from './balancer-faults.js';
import type { BalancerPolicy, Next } from './balancer-policy.js';
import type { DeploymentHealth } from './create-deployment-health.js';
import type { QuotaGate } from './deployment-quota.js';
import type { FaultMemory } from './fault-memory.js';
import type { ContinuationRecord } from './relabel-continuation.js';
import type { AttemptRecord } from './route-plan.js';
import type { RequestRun } from './request-run.js';
import { runAttempt, type CommittedAttempt } from './run-attempt.js';
import { toAttemptLimits } from './to-attempt-limits.js';
import { toCompletionTokens } from './to-completion-tokens.js';
import type { Candidate } from './to-candidates.js';
import { toDeadlineError } from './to-deadline-error.js';
import { failAttemptSpan, startAttemptSpan, traceCommitted } from './trace-attempt.js';

/**
 * The state one balancer shares across requests, and the steps every attempt of a request takes:
 * check a candidate, call it, record and book the outcome.
 */
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
  /**
   * Builds the retry, cooldown and fallback policy from a table's `balancer` settings (once per
   * table). @default createBalancerPolicy
   */
  createPolicy?: (settings: RoutingTable['balancer']) => BalancerPolicy;
}

/** What every request of one balancer shares. */
export interface Parts extends BalancerOptions {
  quotas: QuotaGate;
  health: DeploymentHealth;
  /** Request contents that made deployments answer 5xx (balancer-faults.ts). */
  faults: FaultMemory;
  /** The policy of the table in force (balancer-policy.ts). */
  policy: () => BalancerPolicy;
}

/** The attempt that reached the commit point; `startedAt` in epoch ms. */
export interface AnsweredAttempt {
  candidate: Candidate;
  committed: CommittedAttempt;
  startedAt: number;
  /** Switches to other deployments that made this answer (continuation), if any. */
  continuations?: ContinuationRecord[];
}

export type AttemptEntry = Omit<AttemptRecord, 'fallback' | 'deploymentId'> & { candidate: Candidate };

/** A call that failed before the commit point; `startedAt` in epoch ms. */
export interface FailedCall {
  candidate: Candidate;
  error: RouterError;
  startedAt: number;
  /** What the policy said to do next (move on or stop); asked when absent. */
  next?: Next;
}

/**
 * Waits `milliseconds` on the request's signal (a backoff, a retry in place). When the signal aborts,
 * throws its reason as it is (CLIENT_CLOSED, or SHUTTING_DOWN at the end of a drain), else
 * CLIENT_CLOSED with `message`.
 */
export async function waitForRequest(
  parts: Parts,
  run: RequestRun,
  wait: { milliseconds: number; message: string },
): Promise<void> {
  await parts.sleep(wait.milliseconds, run.request.signal).catch((cause: unknown) => {
    if (cause instanceof RouterError && isStopped(cause)) throw cause;
    throw new RouterError({ code: 'CLIENT_CLOSED', message: wait.message, cause });
  });
}

/** Why a candidate is passed over without a call (cooling down, full, probe taken, quota), or undefined. */
export async function toSkip(
  parts: Parts,
  run: RequestRun,
  candidate: Candidate,
): Promise<string | undefined> {
  const availability = await parts.health.check(candidate, run.request.plan.timeouts.total_ms);
  if (availability.skip !== undefined) return availability.skip;
  const quotaSkip = await parts.quotas.reserve(candidate.deployment, run.request.promptTokens);
  if (quotaSkip !== undefined && availability.probe) await parts.store.releaseProbe(candidate.deployment.id);
  return quotaSkip;
}

/**
 * Opens one upstream call with `body` and reads it up to the request's commit point, in a client span
 * whose trace headers go with the call (see trace-attempt.ts).
 */
export async function callCandidate(
  parts: Parts,
  run: RequestRun,
  call: { candidate: Candidate; body: string; head?: UpstreamEvent[]; continuation?: boolean },
): Promise<CommittedAttempt> {
  const { candidate } = call;
  const { clock } = parts;
  const { request } = run;
  const limits = toAttemptLimits(request.plan.timeouts, { at: run.deadlineAt, now: clock.now() });
  run.calls += 1;
  const span = startAttemptSpan(run, { candidate, continuation: call.continuation === true });
  try {
    await parts.store.addInFlight(candidate.deployment.id, 1);
    const committed = await runAttempt({
      upstream: parts.upstream,
      clock,
      deployment: candidate.deployment,
      path: request.toPath?.(candidate.deployment) ?? request.path,
      body: call.body,
      signal: request.signal,
      limits,
      requestId: request.requestId,
      commit: request.commit,
      traceHeaders: span.traceHeaders(),
      ...(call.head === undefined ? {} : { head: call.head }),
      ...(request.answer === undefined ? {} : { answer: request.answer }),
    });
    return traceCommitted(span, committed, { buffered: request.commit === 'complete' });
  } catch (error) {
    failAttemptSpan(span, toRouterError(error));
    throw error;
  }
}

/** Records an attempt (or a skipped candidate) on the run and tells the observer. */
export function recordAttempt(parts: Parts, run: RequestRun, entry: AttemptEntry): void {
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

/** Books a failed attempt and notes what it means for the next ones; throws when it ends the request. */
export async function bookFailure(parts: Parts, run: RequestRun, failure: FailedCall): Promise<void> {
  recordFailedCall(parts, run, failure);
  await closeFailure(parts, run, failure);
}

/** Records a candidate passed over without a call; returns the outcome (the reason's first word). */
export function recordSkip(
  parts: Parts,
  run: RequestRun,
  skipped: { candidate: Candidate; reason: string },
): string {
  const outcome = skipped.reason.split(' ')[0] ?? 'SKIPPED';
  const { candidate, reason } = skipped;
  recordAttempt(parts, run, { candidate, outcome, message: reason, called: false, durationMs: 0 });
  return outcome;
}

/**
 * Records a call that reached the commit point (its time included); a buffered one is over, so its
 * books on the deployment close now.
 */
export async function recordAnswer(
  parts: Parts,
  run: RequestRun,
  answer: AnsweredAttempt & { message: string },
): Promise<void> {
  const { candidate, committed, startedAt } = answer;
  const durationMs = parts.clock.now() - startedAt;
  run.upstreamMs += durationMs;
  recordAttempt(parts, run, { candidate, outcome: 'OK', message: answer.message, called: true, durationMs });
  if (run.request.commit !== 'complete') return;
  const completionTokens = toCompletionTokens(committed.head);
  await parts.health.onSuccess(candidate, { ttftMs: committed.ttftMs, completionTokens });
}

/** Records a failed call on the run (its time included) without booking it on the deployment. */
export function recordFailedCall(parts: Parts, run: RequestRun, failure: FailedCall): void {
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

/**
 * Books a recorded failure on the deployment, then does what the policy said: throws when it ends the
 * request (or the deadline has passed), else keeps its notes. A 5xx is held for the end of the
 * request, when it is known whether it follows the content (balancer-faults.ts).
 */
export async function closeFailure(parts: Parts, run: RequestRun, failure: FailedCall): Promise<void> {
  const { candidate, error } = failure;
  const { clock } = parts;
  const policy = parts.policy();
  if (policy.isContentFault(failure)) await holdServerError(parts, run, failure);
  else await parts.health.onFailure(candidate, error);
  const deadlineError = toDeadlineError({
    attempts: run.attempts,
    totalMs: run.request.plan.timeouts.total_ms,
    deadlineAt: run.deadlineAt,
    now: clock.now(),
    cause: error,
  });
  if (deadlineError !== undefined) throw deadlineError;
  const next = failure.next ?? policy.onFailure(failure, { notes: run.notes });
  if (next.kind === 'stop') throw next.error;
  if (next.kind === 'move-on') run.notes = next.notes;
}
