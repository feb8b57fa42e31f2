import type { CooldownRecord } from '../state/state-store.js';

export interface AfterProbeInput {
  healthy: boolean;
  /** The record as it is now (re-read after the probe). */
  cooldown: CooldownRecord;
  /** A probe of this bench failed before (the prober saw the deployment down). */
  seenDown: boolean;
  /** Epoch ms when this probe's slot ends and the next probe may start. */
  nextProbeAt: number;
  now: number;
  /** The next probe's own time: its timeout and the prober's look-in period, in ms. */
  probeMs: number;
}

export type AfterProbe =
  /** Back in service at once. */
  | { action: 'clear' }
  /** The probe proves nothing: the cooldown runs on, and a user request probes after it. */
  | { action: 'keep' }
  /** Still down: benched until the next probe has had time to start and finish. */
  | { action: 'bench'; cooldown: CooldownRecord };

/**
 * What a background probe's outcome does to a benched deployment.
 *
 * Healthy after a failed probe (or after refused connections, which a failed probe would only have
 * repeated): the outage was seen and is over, so the cooldown is cleared. Healthy with no failure
 * seen: /health answered all along while requests failed (a flapping server, a per-request 5xx), so
 * the probe proves nothing and the cooldown and the user half-open probe decide, as without probes;
 * otherwise such a deployment would be let back after every probe, one failed request each time.
 *
 * Unhealthy: one more consecutive failure, as cooldown-policy.ts counts them, and benched past the
 * end of the next probe, so no user request probes a deployment the prober covers. The reason stays.
 */
export function decideAfterProbe(input: AfterProbeInput): AfterProbe {
  const { cooldown } = input;
  if (input.healthy)
    return input.seenDown || cooldown.reason === 'UPSTREAM_CONNECT_FAILED'
      ? { action: 'clear' }
      : { action: 'keep' };
  return {
    action: 'bench',
    cooldown: {
      until: Math.max(input.nextProbeAt, input.now) + input.probeMs,
      reason: cooldown.reason,
      failures: cooldown.failures + 1,
    },
  };
}
