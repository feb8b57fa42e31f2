import type { RoutingTable } from '../config/table-schema.js';
import type { Logger } from '../observe/logger.js';
import type { Clock } from '../shared/clock.js';
import type { RouterError } from '../shared/errors.js';
import type { StateStore } from '../state/state-store.js';
import { decideCooldown } from './cooldown-policy.js';
import { decideAvailability } from './decide-availability.js';
import type { QuotaGate } from './deployment-quota.js';
import type { Candidate } from './to-candidates.js';

export interface DeploymentHealthOptions {
  store: StateStore;
  clock: Clock;
  quotas: QuotaGate;
  logger: Logger;
  table: () => RoutingTable;
  /** Told when a deployment is benched (metrics). */
  onCooldown?: ((deploymentId: string, reason: string) => void) | undefined;
}

/** How an attempt that reached its commit point went, for the books. */
export interface AttemptSuccess {
  ttftMs: number;
  completionTokens: number;
}

/** The shared books on each deployment: in-flight counts, cooldowns and probes, latency, quotas. */
export interface DeploymentHealth {
  /** Why the candidate cannot be called now, or undefined when it can; `probe` when it took the probe. */
  check(candidate: Candidate, probeTtlMs: number): Promise<{ skip?: string; probe: boolean }>;
  onSuccess(candidate: Candidate, outcome: AttemptSuccess): Promise<void>;
  onFailure(candidate: Candidate, error: RouterError): Promise<void>;
}

export function createDeploymentHealth(options: DeploymentHealthOptions): DeploymentHealth {
  const { store, clock } = options;

  async function check(candidate: Candidate, probeTtlMs: number): Promise<{ skip?: string; probe: boolean }> {
    const id = candidate.deployment.id;
    const [cooldowns, inFlight] = await Promise.all([store.getCooldowns([id]), store.getInFlight([id])]);
    const availability = decideAvailability({
      inFlight: inFlight.get(id) ?? 0,
      maxConcurrency: candidate.deployment.max_concurrency,
      cooldown: cooldowns.get(id),
      now: clock.now(),
    });
    if (availability.kind === 'free') return { probe: false };
    if (availability.kind === 'skip') return { skip: availability.reason, probe: false };
    return (await store.acquireProbe(id, probeTtlMs))
      ? { probe: true }
      : { skip: 'PROBE_IN_PROGRESS', probe: false };
  }

  async function onSuccess(candidate: Candidate, outcome: AttemptSuccess): Promise<void> {
    const id = candidate.deployment.id;
    await store.addInFlight(id, -1);
    await options.quotas.recordCompletion(candidate.deployment, outcome.completionTokens);
    const alpha = options.table().balancer.ewma_alpha;
    await store.recordLatency({ id, milliseconds: outcome.ttftMs, alpha });
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
    if (record === undefined) {
      if (previous !== undefined) await store.releaseProbe(id);
      return;
    }
    options.onCooldown?.(id, record.reason);
    const { reason, until, failures } = record;
    options.logger.warn('deployment benched', { deployment: id, reason, until, failures });
    await store.setCooldown(id, record);
  }

  return { check, onSuccess, onFailure };
}
