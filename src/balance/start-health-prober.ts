import type { RoutingTable } from '../config/routing-table-schema.js';
import type { DeploymentConfig } from '../config/table-part-schemas.js';
import { createCancelController, type CancelSignal } from '../shared/cancel-signal.js';
import type { Clock, Sleep } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { CooldownRecord, StateStore } from '../state/state-store.js';
import type { HealthCheck, ProbeKind } from '../upstream/health-check.js';
import { decideProbe } from './decide-probe.js';
import { toFailedProbeCooldown } from './to-failed-probe-cooldown.js';

export type ProbeOutcome = 'healthy' | 'unhealthy';

export interface HealthProberOptions {
  store: StateStore;
  healthCheck: HealthCheck;
  clock: Clock;
  /** Waits between looks at the store; must reject when its signal aborts. */
  sleep: Sleep;
  logger: Logger;
  /** Read at every look, so a reload changes settings and deployments at once. */
  table: () => RoutingTable;
  /** Told about every probe's outcome (metrics). */
  onProbe?: ((deploymentId: string, outcome: ProbeOutcome) => void) | undefined;
}

export interface HealthProber {
  /** Ends the loop and aborts the probes in flight; resolves once all have ended. */
  stop(): Promise<void>;
}

/**
 * The store's probe slot for a deployment's background probes. It is not the user half-open probe
 * (`acquireProbe(deploymentId)`), which setCooldown and clearCooldown release: the slot must outlive
 * them, so that an instance reading a cooldown a moment old cannot probe the same interval again.
 */
export const toProbeSlotId = (deploymentId: string): string => `health-probe:${deploymentId}`;

interface PlannedProbe {
  deployment: DeploymentConfig;
  kind: ProbeKind;
  cooldown: CooldownRecord;
  /** How long this probe's slot keeps every prober out, ms (the interval to the next probe). */
  slotMs: number;
}

const toProbeKind = (deployment: DeploymentConfig): ProbeKind | undefined =>
  deployment.health_probe === 'none' ? undefined : deployment.health_probe;

/**
 * Probes benched deployments in the background, independent of user traffic (issue 18): every
 * quarter of `first_interval_ms` it reads the cooldowns of the table's deployments, and probes each
 * benched one whose slot is free (decide-probe.ts). Healthy: the cooldown is cleared and the
 * deployment takes traffic at once. Unhealthy: it stays benched past its next probe, one failure more.
 * With a shared store (Redis) the slot makes one instance probe each interval, and all see the result.
 */
export function startHealthProber(options: HealthProberOptions): HealthProber {
  const stopping = createCancelController();
  const running = new Map<string, Promise<void>>();
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      await lookIn(options, running, stopping.signal).catch((error: unknown) =>
        options.logger.error('health prober could not read the cooldowns', { error: String(error) }),
      );
      const lookEveryMs = options.table().balancer.health_probes.first_interval_ms / 4;
      await options.sleep(lookEveryMs, stopping.signal).catch(() => undefined);
    }
  })();
  return {
    async stop() {
      stopping.abort();
      await loop;
      await Promise.all(running.values());
    },
  };
}

/** Starts a probe for each benched deployment that is due and not already being probed here. */
async function lookIn(
  options: HealthProberOptions,
  running: Map<string, Promise<void>>,
  signal: CancelSignal,
): Promise<void> {
  const table = options.table();
  const settings = table.balancer.health_probes;
  if (!settings.enabled) return;
  const watched = table.deployments.filter(
    (deployment) => toProbeKind(deployment) !== undefined && !running.has(deployment.id),
  );
  if (watched.length === 0) return;
  const cooldowns = await options.store.getCooldowns(watched.map((deployment) => deployment.id));
  for (const deployment of watched) {
    const kind = toProbeKind(deployment);
    const cooldown = cooldowns.get(deployment.id);
    const plan = decideProbe({ cooldown, kind: deployment.health_probe, settings });
    if (!plan.probe || kind === undefined || cooldown === undefined) continue;
    const probe = probeOnce(options, { deployment, kind, cooldown, slotMs: plan.slotMs }, signal)
      .catch((error: unknown) =>
        options.logger.error('health probe could not record its outcome', {
          deployment: deployment.id,
          error: String(error),
        }),
      )
      .finally(() => running.delete(deployment.id));
    running.set(deployment.id, probe);
  }
}

/** Takes the deployment's probe slot, probes, and clears or extends its cooldown. */
async function probeOnce(
  options: HealthProberOptions,
  planned: PlannedProbe,
  signal: CancelSignal,
): Promise<void> {
  const { store, clock, logger } = options;
  const { deployment, kind, slotMs } = planned;
  const id = deployment.id;
  const startedAt = clock.now();
  if (!(await store.acquireProbe(toProbeSlotId(id), slotMs))) return;
  const settings = options.table().balancer.health_probes;
  const result = await options.healthCheck.check({
    deployment,
    kind,
    timeoutMs: settings.timeout_ms,
    signal,
  });
  if (signal.aborted) return;
  options.onProbe?.(id, result.healthy ? 'healthy' : 'unhealthy');
  if (result.healthy) {
    await store.clearCooldown(id);
    const { reason, failures } = planned.cooldown;
    logger.info('deployment back in service', { deployment: id, probe: kind, reason, failures });
    return;
  }
  // re-read: a user request or another instance may have put it back in service meanwhile
  const current = (await store.getCooldowns([id])).get(id);
  if (current === undefined) return;
  const nextProbeAt = startedAt + slotMs;
  const next = toFailedProbeCooldown({
    cooldown: current,
    nextProbeAt,
    now: clock.now(),
    probeMs: settings.timeout_ms + settings.first_interval_ms / 4,
  });
  await store.setCooldown(id, next);
  logger.warn('health probe failed', {
    deployment: id,
    probe: kind,
    detail: result.detail,
    failures: next.failures,
    next_probe_in_ms: Math.max(0, Math.round(nextProbeAt - clock.now())),
  });
}
