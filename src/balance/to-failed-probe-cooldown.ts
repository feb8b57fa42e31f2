import type { CooldownRecord } from '../state/state-store.js';

export interface FailedProbeInput {
  /** The record as it is now (re-read after the probe). */
  cooldown: CooldownRecord;
  /** Epoch ms when this probe's slot ends and the next probe may start. */
  nextProbeAt: number;
  now: number;
  /** The next probe's own time: its timeout and the prober's look-in period, in ms. */
  probeMs: number;
}

/**
 * The cooldown after a failed background probe: one more consecutive failure, as cooldown-policy.ts
 * counts them, and benched until the next probe has had time to start and finish, so no user request
 * probes a deployment the prober covers. The reason that benched it stays.
 */
export function toFailedProbeCooldown(input: FailedProbeInput): CooldownRecord {
  const { cooldown } = input;
  return {
    until: Math.max(input.nextProbeAt, input.now) + input.probeMs,
    reason: cooldown.reason,
    failures: cooldown.failures + 1,
  };
}
