import type { DeploymentConfig } from '../config/table-part-schemas.js';
import type { RoutingTable } from '../config/routing-table-schema.js';
import type { Clock, Random, Sleep } from '../shared/clock.js';
import { RouterError, toRouterError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { StateStore } from '../state/state-store.js';
import type { AttemptSummary } from '../observe/request-summary.js';
import type { Upstream, UpstreamEvent } from '../upstream/upstream.js';
import { decideCooldown } from './cooldown-policy.js';
import { createQuotaGate } from './deployment-quota.js';
import { orderGroup } from './order-group.js';
import { toBackoffMs } from './retry-policy.js';
import type { AttemptRecord, RoutePlan } from './route-plan.js';
import { runAttempt, type CommitPoint, type CommittedAttempt } from './run-attempt.js';
import type { CancelSignal } from '../shared/cancel-signal.js';

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
}

export interface ExecuteRequest {
  plan: RoutePlan;
  path: string;
  /** The upstream body for one deployment (model name, extra body and stream flags applied). */
  toBody: (deployment: DeploymentConfig) => string;
  signal: CancelSignal;
  requestId: string;
  commit: CommitPoint;
  /** Epoch ms when the request arrived; the tier's total_ms counts from here. */
  startedAt: number;
  /** Prompt tokens, reserved on deployments with a TPM quota. */
  promptTokens: number;
}

export interface ExecuteResult {
  deployment: DeploymentConfig;
  attempts: readonly AttemptRecord[];
  /** Attempts made on deployments of the fallback chain. */
  fallbacks: number;
  /** Time spent waiting on upstreams before the commit point, ms. */
  upstreamMs: number;
  ttftMs: number;
  /** Epoch ms of the first content token of the answering attempt. */
  firstTokenAt: number;
  head: readonly UpstreamEvent[];
  /** Events after the commit point, in arrival batches; iterate it to the end or call `cancel()`. */
  rest: AsyncIterable<UpstreamEvent[]>;
  cancel(): void;
}

export interface Balancer {
  execute(request: ExecuteRequest): Promise<ExecuteResult>;
}

/** The state of one request across its attempts. */
interface RequestRun {
  request: ExecuteRequest;
  deadlineAt: number;
  attempts: AttemptRecord[];
  /** Time spent waiting on upstreams before the commit point, ms. */
  upstreamMs: number;
  calls: number;
  /** After a context-length rejection, only deployments with a larger window are worth a call. */
  minimumWindow: number;
  /** Candidates worth another round: a group's only deployment that answered 429. */
  retryable: Candidate[];
  retryAfterSeconds: number | undefined;
}

interface Candidate {
  deployment: DeploymentConfig;
  fallback: boolean;
  /**
   * Deployments that could take the request instead: the group's size for a group member, every
   * candidate for a fallback. A 429 does not bench a deployment that has no alternative.
   */
  groupSize: number;
}

function toCandidates(plan: RoutePlan, order: readonly string[]): Candidate[] {
  const byId = new Map(plan.group.map((deployment) => [deployment.id, deployment]));
  const group = order
    .map((id) => byId.get(id))
    .filter((value): value is DeploymentConfig => value !== undefined);
  const seen = new Set(group.map((deployment) => deployment.id));
  const fallback = plan.fallback.filter(
    (deployment) => !seen.has(deployment.id) && (seen.add(deployment.id), true),
  );
  return [
    ...group.map((deployment) => ({ deployment, fallback: false, groupSize: group.length })),
    ...fallback.map((deployment) => ({
      deployment,
      fallback: true,
      groupSize: group.length + fallback.length,
    })),
  ];
}

function describeAttempts(attempts: readonly AttemptRecord[]): string {
  return attempts
    .map((attempt) => `${attempt.deploymentId}: ${attempt.outcome} (${attempt.message})`)
    .join('; ');
}

export function createBalancer(options: BalancerOptions): Balancer {
  const { store, clock } = options;
  const quotas = createQuotaGate({ store, clock });

  async function orderCandidates(plan: RoutePlan): Promise<Candidate[]> {
    const ids = plan.group.map((deployment) => deployment.id);
    const needsState = plan.strategy !== 'weighted';
    const [inFlight, latencies] = needsState
      ? await Promise.all([store.getInFlight(ids), store.getLatencies(ids)])
      : [new Map<string, number>(), new Map<string, number>()];
    const members = plan.group.map((deployment) => ({ id: deployment.id, weight: deployment.weight }));
    return toCandidates(
      plan,
      orderGroup({ members, strategy: plan.strategy, random: options.random, inFlight, latencies }),
    );
  }

  /** Why a candidate cannot be called now, or undefined when it can (taking the probe if half-open). */
  async function checkAvailable(
    candidate: Candidate,
    probeTtlMs: number,
  ): Promise<{ skip?: string; probe: boolean }> {
    const id = candidate.deployment.id;
    const [cooldowns, inFlight] = await Promise.all([store.getCooldowns([id]), store.getInFlight([id])]);
    if ((inFlight.get(id) ?? 0) >= candidate.deployment.max_concurrency)
      return { skip: 'AT_MAX_CONCURRENCY', probe: false };
    const record = cooldowns.get(id);
    if (record === undefined) return { probe: false };
    if (clock.now() < record.until)
      return {
        skip: `COOLING_DOWN until ${new Date(record.until).toISOString()} after ${record.reason}`,
        probe: false,
      };
    return (await store.acquireProbe(id, probeTtlMs))
      ? { probe: true }
      : { skip: 'PROBE_IN_PROGRESS', probe: false };
  }

  async function onSuccess(
    candidate: Candidate,
    outcome: { ttftMs: number; completionTokens: number },
  ): Promise<void> {
    const id = candidate.deployment.id;
    const { ttftMs } = outcome;
    await store.addInFlight(id, -1);
    await quotas.recordCompletion(candidate.deployment, outcome.completionTokens);
    await store.recordLatency({ id, milliseconds: ttftMs, alpha: options.table().balancer.ewma_alpha });
    const cooldowns = await store.getCooldowns([id]);
    if (cooldowns.has(id)) await store.clearCooldown(id);
  }

  async function onFailure(candidate: Candidate, error: RouterError): Promise<void> {
    const id = candidate.deployment.id;
    await store.addInFlight(id, -1);
    const { cooldown_ms, max_cooldown_ms } = options.table().balancer;
    const previous = (await store.getCooldowns([id])).get(id);
    const record = decideCooldown({
      error,
      groupSize: candidate.groupSize,
      previousFailures: previous?.failures ?? 0,
      cooldownMs: cooldown_ms,
      maxCooldownMs: max_cooldown_ms,
      now: clock.now(),
    });
    if (record !== undefined) {
      options.onCooldown?.(id, record.reason);
      options.logger.warn('deployment benched', {
        deployment: id,
        reason: record.reason,
        until: record.until,
        failures: record.failures,
      });
      await store.setCooldown(id, record);
    } else if (previous !== undefined) await store.releaseProbe(id);
  }

  function toRest(candidate: Candidate, committed: CommittedAttempt): Pick<ExecuteResult, 'rest' | 'cancel'> {
    let settled = false;
    let completionTokens = toCompletionTokens(committed.head);
    const settle = async (error?: RouterError): Promise<void> => {
      if (settled) return;
      settled = true;
      if (error === undefined || error.code === 'CLIENT_CLOSED')
        await onSuccess(candidate, { ttftMs: committed.ttftMs, completionTokens });
      else await onFailure(candidate, error);
    };
    const cancel = (): void => {
      committed.abort();
      void committed.iterator.return?.();
      void settle();
    };
    const note = (batch: readonly UpstreamEvent[]): void => {
      completionTokens = toCompletionTokens(batch) || completionTokens;
    };
    const rest: AsyncIterable<UpstreamEvent[]> = {
      async *[Symbol.asyncIterator]() {
        try {
          if (committed.pending.length > 0) {
            note(committed.pending);
            yield committed.pending;
          }
          for (;;) {
            const next = await committed.iterator.next();
            if (next.done === true) break;
            note(next.value);
            yield next.value;
          }
          await settle();
        } catch (error) {
          const routerError = toRouterError(error);
          await settle(routerError);
          throw routerError;
        } finally {
          if (!settled) cancel();
        }
      },
    };
    return { rest, cancel };
  }

  /** Records an attempt (or a skipped candidate) on the run and tells the observer. */
  function record(
    run: RequestRun,
    entry: Omit<AttemptRecord, 'fallback' | 'deploymentId'> & { candidate: Candidate },
  ): void {
    const { candidate, ...rest } = entry;
    const attempt = { deploymentId: candidate.deployment.id, fallback: candidate.fallback, ...rest };
    run.attempts.push(attempt);
    // not `{ ...attempt, more }`: V8 tenures objects made that way (see http/write-answer.ts)
    options.onAttempt?.(
      Object.assign({}, attempt, {
        requestId: run.request.requestId,
        tier: run.request.plan.tier,
        attempt: run.attempts.length,
      }),
    );
  }

  function toResult(
    run: RequestRun,
    candidate: Candidate,
    committed: CommittedAttempt & { startedAt: number },
  ): ExecuteResult {
    const tail =
      run.request.commit === 'complete'
        ? { rest: emptyEvents, cancel: () => undefined }
        : toRest(candidate, committed);
    const fallbacks = run.attempts.filter((attempt) => attempt.called && attempt.fallback).length;
    return {
      deployment: candidate.deployment,
      attempts: run.attempts,
      fallbacks,
      upstreamMs: run.upstreamMs,
      ttftMs: committed.ttftMs,
      firstTokenAt: committed.startedAt + committed.ttftMs,
      head: committed.head,
      ...tail,
    };
  }

  /** One call to one candidate; returns the result, or undefined after a failure worth going on from. */
  async function tryCandidate(run: RequestRun, candidate: Candidate): Promise<ExecuteResult | undefined> {
    const { request } = run;
    const { timeouts } = request.plan;
    const remaining = run.deadlineAt - clock.now();
    run.calls += 1;
    await store.addInFlight(candidate.deployment.id, 1);
    const attemptStart = clock.now();
    try {
      const committed = await runAttempt({
        upstream: options.upstream,
        clock,
        deployment: candidate.deployment,
        path: request.path,
        body: request.toBody(candidate.deployment),
        signal: request.signal,
        limits: {
          connectMs: Math.min(timeouts.connect_ms, remaining),
          ttftMs: Math.min(timeouts.ttft_ms, remaining),
          idleMs: timeouts.idle_ms,
          deadlineAt: run.deadlineAt,
        },
        requestId: request.requestId,
        commit: request.commit,
      });
      run.upstreamMs += clock.now() - attemptStart;
      record(run, {
        candidate,
        outcome: 'OK',
        message: 'answered',
        called: true,
        durationMs: clock.now() - attemptStart,
      });
      if (request.commit === 'complete')
        await onSuccess(candidate, {
          ttftMs: committed.ttftMs,
          completionTokens: toCompletionTokens(committed.head),
        });
      return toResult(run, candidate, Object.assign({}, committed, { startedAt: attemptStart }));
    } catch (thrown) {
      run.upstreamMs += clock.now() - attemptStart;
      const error = toRouterError(thrown);
      record(run, {
        candidate,
        outcome: error.code,
        message: error.message,
        called: true,
        durationMs: clock.now() - attemptStart,
      });
      await onFailure(candidate, error);
      if (run.deadlineAt - clock.now() <= 1) {
        throw new RouterError({
          code: 'DEADLINE_EXCEEDED',
          message: `total deadline of ${request.plan.timeouts.total_ms} ms reached: ${describeAttempts(run.attempts)}`,
          cause: error,
        });
      }
      noteFailure(run, candidate, error);
      return undefined;
    }
  }

  /** Decides what a failure means for the rest of the request; throws when it ends it. */
  function noteFailure(run: RequestRun, candidate: Candidate, error: RouterError): void {
    if (error.code === 'CLIENT_CLOSED' || !error.retryable) throw error;
    if (error.code === 'UPSTREAM_CONTEXT_LENGTH')
      run.minimumWindow = Math.max(run.minimumWindow, candidate.deployment.context_window);
    else if (error.code === 'UPSTREAM_RATE_LIMITED' && candidate.groupSize <= 1) {
      run.retryable.push(candidate);
      run.retryAfterSeconds = Math.max(run.retryAfterSeconds ?? 0, error.retryAfterSeconds ?? 0);
    }
  }

  /** One pass over the candidates in order. */
  async function runRound(
    run: RequestRun,
    candidates: readonly Candidate[],
  ): Promise<ExecuteResult | undefined> {
    const { retry } = options.table().balancer;
    for (const candidate of candidates) {
      if (run.calls >= retry.max_attempts || run.deadlineAt <= clock.now()) return undefined;
      if (candidate.deployment.context_window <= run.minimumWindow) continue;
      const availability = await checkAvailable(candidate, run.request.plan.timeouts.total_ms);
      const quotaSkip =
        availability.skip === undefined
          ? await quotas.reserve(candidate.deployment, run.request.promptTokens)
          : undefined;
      if (quotaSkip !== undefined) {
        if (availability.probe) await store.releaseProbe(candidate.deployment.id);
        record(run, {
          candidate,
          outcome: 'QUOTA_EXHAUSTED',
          message: quotaSkip,
          called: false,
          durationMs: 0,
        });
        continue;
      }
      if (availability.skip !== undefined) {
        record(run, {
          candidate,
          outcome: availability.skip.split(' ')[0] ?? 'SKIPPED',
          message: availability.skip,
          called: false,
          durationMs: 0,
        });
        continue;
      }
      const result = await tryCandidate(run, candidate);
      if (result !== undefined) return result;
    }
    return undefined;
  }

  /** The error that ends a request after a round, or the wait before the next round. */
  function afterRound(run: RequestRun, round: number): { wait: number } | { error: RouterError } {
    const { retry } = options.table().balancer;
    const { plan } = run.request;
    if (run.attempts.at(-1)?.outcome === 'UPSTREAM_CONTEXT_LENGTH') {
      return {
        error: new RouterError({
          code: 'UPSTREAM_CONTEXT_LENGTH',
          message: `no deployment with a larger context window is left: ${describeAttempts(run.attempts)}`,
        }),
      };
    }
    const wait =
      run.retryable.length > 0 && run.calls < retry.max_attempts
        ? toBackoffMs({
            round,
            baseMs: retry.backoff_base_ms,
            maxMs: retry.backoff_max_ms,
            random: options.random,
            retryAfterSeconds: run.retryAfterSeconds,
            retryAfterCapMs: retry.retry_after_cap_ms,
          })
        : undefined;
    if (wait !== undefined && clock.now() + wait < run.deadlineAt) return { wait };
    const detail = run.attempts.length === 0 ? 'no eligible deployment' : describeAttempts(run.attempts);
    return {
      error: new RouterError({
        code: 'ALL_DEPLOYMENTS_FAILED',
        message: `all deployments for tier ${plan.tier} failed: ${detail}`,
        ...(run.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: run.retryAfterSeconds }),
      }),
    };
  }

  /**
   * Tries the group, then the fallback chain; then, when only Retry-After stood in the way (a group's
   * only deployment answered 429), waits with backoff and tries those again, all within total_ms.
   */
  async function execute(request: ExecuteRequest): Promise<ExecuteResult> {
    const run: RequestRun = {
      request,
      deadlineAt: request.startedAt + request.plan.timeouts.total_ms,
      attempts: [],
      upstreamMs: 0,
      calls: 0,
      minimumWindow: 0,
      retryable: [],
      retryAfterSeconds: undefined,
    };
    let candidates = await orderCandidates(request.plan);
    for (let round = 0; ; round += 1) {
      const result = await runRound(run, candidates);
      if (result !== undefined) return result;
      const next = afterRound(run, round);
      if ('error' in next) throw next.error;
      candidates = run.retryable;
      run.retryable = [];
      await options.sleep(next.wait, request.signal).catch((cause: unknown) => {
        throw new RouterError({
          code: 'CLIENT_CLOSED',
          message: 'client closed the connection during backoff',
          cause,
        });
      });
    }
  }

  return { execute };
}

const emptyEvents: AsyncIterable<UpstreamEvent[]> = {
  async *[Symbol.asyncIterator]() {
    // nothing after a buffered attempt
  },
};

/** Completion tokens reported by the last usage chunk among `events`, 0 when none. */
export function toCompletionTokens(events: readonly UpstreamEvent[]): number {
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const usage = events[index]?.chunk.usage;
    if (usage !== undefined && usage !== null) return usage.completion_tokens;
  }
  return 0;
}
