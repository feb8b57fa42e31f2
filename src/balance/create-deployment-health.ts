import type { RoutingTable } from '../config/routing-table-schema.js';
import type { Logger } from '../shared/logger.js';
import type { Clock } from '../shared/clock.js';
import type { RouterError } from '../shared/errors.js';
import type { StateStore } from '../state/state-store.js';
import type { BalancerPolicy } from './balancer-policy.js';
import { decideAvailability } from './decide-availability.js';
import type { QuotaGate } from './deployment-quota.js';
import type { Candidate } from './to-candidates.js';

export interface DeploymentHealthOptions {
  store: StateStore;
  clock: Clock;
  quotas: QuotaGate;
  logger: Logger;
  table: () => RoutingTable;
  /** The policy in force: how long a failure benches a deployment. */
  policy: () => BalancerPolicy;
  /** Told when a deployment is benched (metrics). */
  onCooldown?: ((deploymentId: string, reason: string) => void) | undefined;
}

/** How an attempt that reached its commit point went, for the books. */
export interface AttemptSuccess {
  ttftMs: number;
  completionTokens: number;
}

/** Whether a candidate can be called: `skip` says why not; `probe` when it took the half-open probe. */
export interface CandidateCheck {
  skip?: string;
  probe: boolean;
}

/** The shared books on each deployment: in-flight counts, cooldowns and probes, latency, quotas. */
export interface DeploymentHealth {
  /** `probeTtlMs`: how long a taken probe keeps others out when its owner never reports back. */
  check(candidate: Candidate, probeTtlMs: number): Promise<CandidateCheck>;
  onSuccess(candidate: Candidate, outcome: AttemptSuccess): Promise<void>;
  onFailure(candidate: Candidate, error: RouterError): Promise<void>;
  /**
   * Frees the in-flight slot of a failure whose verdict waits for the rest of the request (a 5xx that
   * may be the request's fault), handing back a probe it held; `bench` may follow.
   */
  hold(candidate: Candidate): Promise<void>;
  /** Benches the deployment for a failure already freed by `hold`, when the failure says it is unwell. */
  bench(candidate: Candidate, error: RouterError): Promise<void>;
}

export function createDeploymentHealth(options: DeploymentHealthOptions): DeploymentHealth {
  return {
    check: (candidate, probeTtlMs) => check(options, candidate, probeTtlMs),
    onSuccess: (candidate, outcome) => onSuccess(options, candidate, outcome),
    onFailure: async (candidate, error) => {
      await options.store.addInFlight(candidate.deployment.id, -1);
      await bench(options, candidate, error);
    },
    hold: async (candidate) => {
      const id = candidate.deployment.id;
      await options.store.addInFlight(id, -1);
      if ((await options.store.getCooldowns([id])).has(id)) await options.store.releaseProbe(id);
    },
    bench: (candidate, error) => bench(options, candidate, error),
  };
}

async function check(
  options: DeploymentHealthOptions,
  candidate: Candidate,
  probeTtlMs: number,
): Promise<CandidateCheck> {
  const { store } = options;
  const id = candidate.deployment.id;
  const [cooldowns, inFlight] = await Promise.all([store.getCooldowns([id]), store.getInFlight([id])]);
  const availability = decideAvailability({
    inFlight: inFlight.get(id) ?? 0,
    maxConcurrency: candidate.deployment.max_concurrency,
    cooldown: cooldowns.get(id),
    now: options.clock.now(),
  });
  if (availability.kind === 'free') return { probe: false };
  if (availability.kind === 'skip') return { skip: availability.reason, probe: false };
  return (await store.acquireProbe(id, probeTtlMs))
    ? { probe: true }
    : { skip: 'PROBE_IN_PROGRESS', probe: false };
}

/** Frees the in-flight slot, books completion tokens and latency, and takes a benched deployment back. */
async function onSuccess(
  options: DeploymentHealthOptions,
  candidate: Candidate,
  outcome: AttemptSuccess,
): Promise<void> {
  const { store } = options;
  const id = candidate.deployment.id;
  await store.addInFlight(id, -1);
  await options.quotas.recordCompletion(candidate.deployment, outcome.completionTokens);
  const alpha = options.table().balancer.ewma_alpha;
  await store.recordLatency({ id, milliseconds: outcome.ttftMs, alpha });
  const cooldowns = await store.getCooldowns([id]);
  if (cooldowns.has(id)) await store.clearCooldown(id);
}

/** Benches the deployment when the failure says it is unwell (its in-flight slot already freed). */
async function bench(
  options: DeploymentHealthOptions,
  candidate: Candidate,
  error: RouterError,
): Promise<void> {
  const { store } = options;
  const id = candidate.deployment.id;
  const previous = (await store.getCooldowns([id])).get(id);
  const record = options.policy().cooldownFor({
    error,
    groupSize: candidate.groupSize,
    previousFailures: previous?.failures ?? 0,
    now: options.clock.now(),
  });
  if (record === undefined) {
    // a failed probe that benches nothing (e.g. a 400) hands the probe back
    if (previous !== undefined) await store.releaseProbe(id);
    return;
  }
  options.onCooldown?.(id, record.reason);
  const { reason, until, failures } = record;
  options.logger.warn('deployment benched', { deployment: id, reason, until, failures });
  await store.setCooldown(id, record);
}
