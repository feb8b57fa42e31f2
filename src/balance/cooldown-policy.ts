import type { RouterError } from '../shared/errors.js';
import type { CooldownRecord } from '../state/state-store.js';

/** Codes that say the deployment itself is unwell (as opposed to the request being bad). */
const BENCHING_CODES: ReadonlySet<string> = new Set([
  'UPSTREAM_RATE_LIMITED',
  'UPSTREAM_SERVER_ERROR',
  'UPSTREAM_CONNECT_FAILED',
  'UPSTREAM_CONNECT_TIMEOUT',
  'UPSTREAM_TTFT_TIMEOUT',
  'UPSTREAM_IDLE_TIMEOUT',
  'UPSTREAM_STREAM_CUT',
  'UPSTREAM_MALFORMED',
]);

export interface CooldownInput {
  error: RouterError;
  /** Deployments in the group this one was chosen from. */
  groupSize: number;
  /** Consecutive failures before this one (0 when healthy). */
  previousFailures: number;
  /** Cooldown when no Retry-After is given, ms. */
  cooldownMs: number;
  maxCooldownMs: number;
  now: number;
}

/**
 * Whether a failure benches the deployment, and until when. Retry-After wins when given; otherwise
 * the cooldown doubles with each consecutive failure, failed probes included (a successful probe resets it).
 * A group's only deployment is not benched for a 429: it is all that group has, and the balancer
 * waits out the Retry-After instead.
 */
export function decideCooldown(input: CooldownInput): CooldownRecord | undefined {
  const { error } = input;
  if (!BENCHING_CODES.has(error.code)) return undefined;
  if (error.code === 'UPSTREAM_RATE_LIMITED' && input.groupSize <= 1) return undefined;
  const failures = input.previousFailures + 1;
  const backoff = input.cooldownMs * 2 ** Math.min(failures - 1, 10);
  const requested = error.retryAfterSeconds === undefined ? backoff : error.retryAfterSeconds * 1000;
  const duration = Math.min(input.maxCooldownMs, requested);
  return { until: input.now + duration, reason: error.code, failures };
}
