import type { CooldownRecord } from '../state/state-store.js';

/** Whether a candidate can be called now: freely, only as the half-open probe, or not at all. */
export type Availability = { kind: 'free' } | { kind: 'probe' } | { kind: 'skip'; reason: string };

export interface AvailabilityInput {
  /** The deployment's in-flight requests across the fleet. */
  inFlight: number;
  maxConcurrency: number;
  cooldown: CooldownRecord | undefined;
  /** Epoch ms. */
  now: number;
}

/**
 * A full deployment is skipped; a benched one is skipped until its cooldown ends, then may take one
 * probe request (the caller still has to win the probe in the store).
 */
export function decideAvailability(input: AvailabilityInput): Availability {
  if (input.inFlight >= input.maxConcurrency) return { kind: 'skip', reason: 'AT_MAX_CONCURRENCY' };
  const { cooldown } = input;
  if (cooldown === undefined) return { kind: 'free' };
  if (input.now < cooldown.until) {
    const until = new Date(cooldown.until).toISOString();
    return { kind: 'skip', reason: `COOLING_DOWN until ${until} after ${cooldown.reason}` };
  }
  return { kind: 'probe' };
}
