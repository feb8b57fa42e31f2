import type { DeploymentConfig, HealthProbesConfig } from '../config/table-part-schemas.js';
import type { CooldownRecord } from '../state/state-store.js';

/** Bench reasons a successful probe of each kind disproves. */
const SERVER_DOWN_REASONS: readonly string[] = [
  'UPSTREAM_SERVER_ERROR',
  'UPSTREAM_CONNECT_FAILED',
  'UPSTREAM_CONNECT_TIMEOUT',
  'UPSTREAM_STREAM_CUT',
];
const DISPROVED_BY: Record<DeploymentConfig['health_probe'], ReadonlySet<string>> = {
  health: new Set(SERVER_DOWN_REASONS),
  models: new Set(SERVER_DOWN_REASONS),
  // a one-token completion within the probe's timeout also shows the model generates
  chat: new Set([...SERVER_DOWN_REASONS, 'UPSTREAM_TTFT_TIMEOUT', 'UPSTREAM_IDLE_TIMEOUT']),
  none: new Set(),
};

export interface ProbeInput {
  /** The deployment's cooldown record, undefined when it is not benched. */
  cooldown: CooldownRecord | undefined;
  kind: DeploymentConfig['health_probe'];
  settings: Pick<HealthProbesConfig, 'first_interval_ms' | 'max_interval_ms'>;
}

/**
 * Whether the background prober probes a deployment now, and how long the probe's slot keeps every
 * other prober out: `first_interval_ms` doubled per consecutive failure beyond the first, capped at
 * `max_interval_ms` (1, 2, 4, 8, 10, 10 s by default). The failure count lives in the shared
 * cooldown record, so every instance computes the same interval.
 *
 * Skipped: deployments that are not benched, and benches a probe cannot disprove. A rate limit is
 * over when Retry-After says, whatever /health answers; a first-token or idle timeout means slow,
 * which only a `chat` probe can measure. Those come back through the cooldown and a user probe.
 */
export function decideProbe(input: ProbeInput): { probe: false } | { probe: true; slotMs: number } {
  const { cooldown, settings } = input;
  if (cooldown === undefined || !DISPROVED_BY[input.kind].has(cooldown.reason)) return { probe: false };
  const doublings = Math.min(Math.max(cooldown.failures - 1, 0), 30);
  const slotMs = Math.min(settings.max_interval_ms, settings.first_interval_ms * 2 ** doublings);
  return { probe: true, slotMs };
}
