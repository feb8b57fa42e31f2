import type { RoutingTable } from '../config/routing-table-schema.js';
import { RouterError, toRouterError, withInternalNames } from '../shared/errors.js';
import type { UpstreamEvent } from '../upstream/upstream.js';
import type { Balancer, ExecuteRequest, ExecuteResult } from './balancer.js';
import { continueBuffered, toResult } from './balancer-answer.js';
import { afterFailure } from './balancer-retry.js';
import {
  bookFailure,
  callCandidate,
  recordAnswer,
  recordSkip,
  toSkip,
  waitForRequest,
  type AnsweredAttempt,
  type BalancerOptions,
  type Parts,
} from './balancer-run.js';
import { settleFaults } from './balancer-faults.js';
import { createDeploymentHealth } from './create-deployment-health.js';
import { decideAfterRound } from './decide-after-round.js';
import { COOLING_OUTCOMES, decidePanic } from './decide-panic.js';
import { createQuotaGate } from './deployment-quota.js';
import { createFaultMemory } from './fault-memory.js';
import { toInternalNames } from './internal-names.js';
import { orderCandidates } from './order-candidates.js';
import { startRun, type RequestRun } from './request-run.js';
import type { Candidate } from './to-candidates.js';

export type { BalancerOptions } from './balancer-run.js';

/**
 * Tries the group, then the fallback chain; then, when only Retry-After stood in the way (a group's
 * only deployment answered 429), waits with backoff and tries those again, all within total_ms.
 * A transient failure is retried on the same deployment first when going on would lower quality
 * (balancer-retry.ts); an answer that breaks after its first token is continued on a
 * continuation-capable deployment (balancer-answer.ts). The decisions are the pure parts beside
 * these files; the functions here run them against the store.
 */
export function createBalancer(options: BalancerOptions): Balancer {
  const quotas = createQuotaGate(options);
  const health = createDeploymentHealth({ ...options, quotas });
  const parts: Parts = { ...options, quotas, health, faults: createFaultMemory({ clock: options.clock }) };
  /** The table's deployment hosts, computed once per table (reloads bring a new object). */
  const names = new WeakMap<RoutingTable, readonly string[]>();
  const internalNames = (table: RoutingTable): readonly string[] => {
    let found = names.get(table);
    if (found === undefined) names.set(table, (found = toInternalNames(table.deployments)));
    return found;
  };
  const named = (error: unknown): unknown =>
    error instanceof RouterError ? withInternalNames(error, internalNames(parts.table())) : error;
  return {
    // the error that ends a request, before or after its commit point, carries the table's hosts, so a
    // non-admin key never sees them
    execute: (request) =>
      execute(parts, request).then(
        (result) => ({ ...result, rest: withNamedErrors(result.rest, named) }),
        (error: unknown) => {
          throw named(error);
        },
      ),
  };
}

/** The events after the commit point, with an error that breaks them passed through `named`. */
async function* withNamedErrors<T>(
  rest: AsyncIterable<T>,
  named: (error: unknown) => unknown,
): AsyncIterable<T> {
  try {
    yield* rest;
  } catch (error) {
    throw named(error);
  }
}

/** Runs the request, then settles the 5xx it held (whose fault they were) however it ended. */
async function execute(parts: Parts, request: ExecuteRequest): Promise<ExecuteResult> {
  const run = startRun(request);
  let answeredBy: string | undefined;
  try {
    const result = await executeRounds(parts, run);
    answeredBy = result.deployment.id;
    return result;
  } finally {
    await settleFaults(parts, run, answeredBy);
  }
}

async function executeRounds(parts: Parts, run: RequestRun): Promise<ExecuteResult> {
  const { request } = run;
  let candidates: readonly Candidate[] = await orderCandidates(parts, request.plan);
  for (let round = 0; ; round += 1) {
    const result =
      (await runRound(parts, run, candidates)) ??
      (round === 0 ? await runPanic(parts, run, candidates) : undefined);
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
  const { retry } = parts.table().balancer;
  for (const candidate of candidates) {
    if (run.calls >= retry.max_attempts || run.deadlineAt <= parts.clock.now()) return undefined;
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
 * When the first round called nothing because every deployment it could use is cooling down, one
 * of them is called anyway (decide-panic.ts); undefined when none is, or it failed too.
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
  const chosen = decidePanic(
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
    return await bookAnswer(parts, run, { candidate, committed, startedAt });
  } catch (thrown) {
    const error = toRouterError(thrown);
    // a buffered answer that broke after its first token goes on from there where it can
    const broke = run.request.commit === 'complete' && head.some((event) => event.firstContent);
    const again = (): Promise<ExecuteResult | undefined> => tryCandidate(parts, run, candidate);
    if (!broke) return afterFailure(parts, run, { candidate, error, startedAt, again });
    await bookFailure(parts, run, { candidate, error, startedAt });
    return continueBuffered(parts, run, { candidate, error, head, startedAt });
  }
}

/** Books the attempt that reached the commit point (a buffered one is over: its books close now). */
async function bookAnswer(parts: Parts, run: RequestRun, answer: AnsweredAttempt): Promise<ExecuteResult> {
  await recordAnswer(parts, run, { ...answer, message: 'answered' });
  return toResult(parts, run, answer);
}
