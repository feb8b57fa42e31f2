import type { RoutingTable } from '../config/routing-table-schema.js';
import type { DeploymentConfig, HealthProbesConfig } from '../config/table-part-schemas.js';
import { createCancelController, type CancelSignal } from '../shared/cancel-signal.js';
import type { Clock, Sleep } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { CooldownRecord, StateStore } from '../state/state-store.js';
import type { HealthCheck, ProbeKind } from '../upstream/health-check.js';
import { decideAfterProbe } from './decide-after-probe.js';
import { decideProbe } from './decide-probe.js';

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

/** How often the prober looks at the cooldowns: a quarter of `first_interval_ms`, ms. */
const toLookEveryMs = (settings: HealthProbesConfig): number => settings.first_interval_ms / 4;

interface PlannedProbe {
  deployment: DeploymentConfig;
  kind: ProbeKind;
  cooldown: CooldownRecord;
  /** How long this probe's slot keeps every prober out, ms (the interval to the next probe). */
  slotMs: number;
}

const toProbeKind = (deployment: DeploymentConfig): ProbeKind | undefined =>
  deployment.health_probe === 'none' ? undefined : deployment.health_probe;

/** What one prober keeps between looks. */
interface ProberState {
  /** Probes in flight, by deployment id: never two at once for one deployment. */
  running: Map<string, Promise<void>>;
  /** Deployments whose probe failed during their current bench (this instance's probes only). */
  seenDown: Set<string>;
  signal: CancelSignal;
}

/**
 * Probes benched deployments in the background, independent of user traffic: every
 * quarter of `first_interval_ms` it reads the cooldowns of the table's deployments, and probes each
 * benched one whose slot is free (decide-probe.ts). What the outcome does is decide-after-probe.ts:
 * healthy after being seen down clears the cooldown (the deployment takes traffic at once); unhealthy
 * keeps it benched past its next probe, one failure more. With a shared store (Redis) the slot makes
 * one instance probe each interval, and all see the result.
 */
export function startHealthProber(options: HealthProberOptions): HealthProber {
  const stopping = createCancelController();
  const state: ProberState = { running: new Map(), seenDown: new Set(), signal: stopping.signal };
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      await lookIn(options, state).catch((error: unknown) =>
        options.logger.error('health prober could not read the cooldowns', { error: String(error) }),
      );
      const lookEveryMs = toLookEveryMs(options.table().balancer.health_probes);
      await options.sleep(lookEveryMs, stopping.signal).catch(() => undefined);
    }
  })();
  return {
    async stop() {
      stopping.abort();
      await loop;
      await Promise.all(state.running.values());
    },
  };
}

/** Starts a probe for each benched deployment that is due and not already being probed here. */
async function lookIn(options: HealthProberOptions, state: ProberState): Promise<void> {
  const table = options.table();
  const settings = table.balancer.health_probes;
  if (!settings.enabled) return;
  const watched = table.deployments.filter(
    (deployment) => toProbeKind(deployment) !== undefined && !state.running.has(deployment.id),
  );
  if (watched.length === 0) return;
  const cooldowns = await options.store.getCooldowns(watched.map((deployment) => deployment.id));
  for (const deployment of watched) {
    const kind = toProbeKind(deployment);
    const cooldown = cooldowns.get(deployment.id);
    if (cooldown === undefined) state.seenDown.delete(deployment.id); // its bench is over
    const plan = decideProbe({ cooldown, kind: deployment.health_probe, settings });
    if (!plan.probe || kind === undefined || cooldown === undefined) continue;
    const probe = probeOnce(options, { deployment, kind, cooldown, slotMs: plan.slotMs }, state)
      .catch((error: unknown) =>
        options.logger.error('health probe could not record its outcome', {
          deployment: deployment.id,
          error: String(error),
        }),
      )
      .finally(() => state.running.delete(deployment.id));
    state.running.set(deployment.id, probe);
  }
}

/** Takes the deployment's probe slot, probes, and clears, keeps or extends its cooldown. */
async function probeOnce(
  options: HealthProberOptions,
  planned: PlannedProbe,
  state: ProberState,
): Promise<void> {
  const { store, clock } = options;
  const { deployment, kind, slotMs } = planned;
  const id = deployment.id;
  const startedAt = clock.now();
  const settings = options.table().balancer.health_probes;
  // the slot lapses half a look early: the look that starts the next probe comes at the interval, not
  // up to a look after it (10 s, not 10.25 s, from a failed probe to the next)
  const slotTtlMs = Math.max(1, slotMs - toLookEveryMs(settings) / 2);
  if (!(await store.acquireProbe(toProbeSlotId(id), slotTtlMs))) return;
  const result = await options.healthCheck.check({
    deployment,
    kind,
    timeoutMs: settings.timeout_ms,
    signal: state.signal,
  });
  if (state.signal.aborted) return;
  options.onProbe?.(id, result.healthy ? 'healthy' : 'unhealthy');
  // re-read: a user request or another instance may have put it back in service meanwhile
  const current = (await store.getCooldowns([id])).get(id);
  if (current === undefined) return;
  const nextProbeAt = startedAt + slotMs;
  const after = decideAfterProbe({
    healthy: result.healthy,
    cooldown: current,
    seenDown: state.seenDown.has(id),
    nextProbeAt,
    now: clock.now(),
    probeMs: settings.timeout_ms + toLookEveryMs(settings),
  });
  const fields = { deployment: id, probe: kind, reason: current.reason, failures: current.failures };
  switch (after.action) {
    case 'clear':
      state.seenDown.delete(id);
      await store.clearCooldown(id);
      options.logger.info('deployment back in service', fields);
      return;
    case 'keep':
      options.logger.debug(
        'health probe passed, but never saw the deployment down: its cooldown runs on',
        fields,
      );
      return;
    case 'bench':
      state.seenDown.add(id);
      await store.setCooldown(id, after.cooldown);
      options.logger.warn('health probe failed', {
        ...fields,
        detail: result.detail,
        failures: after.cooldown.failures,
        next_probe_in_ms: Math.max(0, Math.round(nextProbeAt - clock.now())),
      });
  }
}
