import type { RetryInPlaceConfig } from '../config/table-part-schemas.js';
import type { Random } from '../shared/clock.js';
import type { RouterError } from '../shared/errors.js';
import { isConnectionReset } from '../upstream/translate-error.js';

/** What one request already spent on in-place retries of one deployment. */
export interface InPlaceSpent {
  /** Retries after a 5xx or a connection reset. */
  transient: number;
  /** Whether a 429's Retry-After was already waited out. */
  retryAfter: boolean;
}

export const NOTHING_SPENT: InPlaceSpent = { transient: 0, retryAfter: false };

export interface RetryInPlaceInput {
  /** How the call to the deployment failed. */
  error: RouterError;
  /** The tier's `retry_in_place`. */
  settings: RetryInPlaceConfig;
  spent: InPlaceSpent;
  /** The deployment has a cooldown record: this call was its probe, or another request benched it meanwhile. */
  benched: boolean;
  /** A group member of equal rank that this request has not tried yet is free (not benched, not full). */
  peerFree: boolean;
  /** Upstream calls the request may still make: `max_attempts` minus the calls made. */
  callsLeft: number;
  /** Candidates of the plan (group and fallback) this request has not called yet, this one aside. */
  untried: number;
  random: Random;
  /** Epoch ms. */
  now: number;
  /** Epoch ms when the tier's total_ms runs out. */
  deadlineAt: number;
  /**
   * The request content already answered 5xx on another deployment: its 5xx follows the content, so
   * calling again is not worth it. @default false
   */
  contentFailedElsewhere?: boolean;
}

/** Wait this long (ms), then call the same deployment again; `spent` is what the request has used then. */
export interface RetryInPlace {
  wait: number;
  spent: InPlaceSpent;
}

/**
 * Whether a failed deployment is called again before the request goes on: only when going
 * on would drop quality (no untried equal-rank peer is free), for a transient failure (a 5xx, a reset
 * before headers; not a refused connection: nothing listens) after a jittered wait, or for a 429 after
 * its Retry-After when that is within the cap; never for a benched deployment, past max_attempts, with
 * the last attempt while untried candidates remain, or when the wait would end at or after the deadline;
 * never for a 5xx the same content got on another deployment. Undefined: go on to the next candidate.
 */
export function decideRetryInPlace(input: RetryInPlaceInput): RetryInPlace | undefined {
  if (input.peerFree || input.benched || input.callsLeft <= 0) return undefined;
  // the last call goes to a deployment not yet tried: a weaker answer beats none
  if (input.callsLeft === 1 && input.untried > 0) return undefined;
  const planned = toPlannedRetry(input);
  if (planned === undefined || input.now + planned.wait >= input.deadlineAt) return undefined;
  return planned;
}

function isTransient(error: RouterError): boolean {
  const serverError = error.code === 'UPSTREAM_SERVER_ERROR' && (error.upstreamStatus ?? 0) >= 500;
  return serverError || isConnectionReset(error);
}

function toPlannedRetry(input: RetryInPlaceInput): RetryInPlace | undefined {
  const { error, settings, spent } = input;
  if (isTransient(error)) {
    if (input.contentFailedElsewhere === true) return undefined;
    if (spent.transient >= settings.transient_retries) return undefined;
    const wait = input.random() * settings.jitter_ms;
    return { wait, spent: { ...spent, transient: spent.transient + 1 } };
  }
  if (error.code !== 'UPSTREAM_RATE_LIMITED' || error.retryAfterSeconds === undefined) return undefined;
  const wait = error.retryAfterSeconds * 1000;
  if (spent.retryAfter || settings.retry_after_cap_ms === 0 || wait > settings.retry_after_cap_ms)
    return undefined;
  return { wait, spent: { ...spent, retryAfter: true } };
}
