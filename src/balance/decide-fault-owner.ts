import type { RouterError } from '../shared/errors.js';
import type { Candidate } from './to-candidates.js';

/**
 * Whose fault a deployment's 5xx is: the deployment's (it counts toward a cooldown, as every other
 * benching failure does) or the request's (its content makes the engine fail wherever it goes, so
 * benching would take the deployment from every other tenant for one tenant's request). Envoy's
 * outlier detection ejects a host after consecutive 5xx across requests, never for one request; this
 * follows that, with the request content as the evidence.
 */
export type FaultOwner = 'deployment' | 'request';

/** Distinct request contents that must fail on a deployment, with no success between, to bench it. @default 3 */
export const OUTAGE_CONTENTS = 3;

export interface FaultOwnerInput {
  /** The request content was answered by some deployment (this request, or an earlier one recently). */
  answered: boolean;
  /** The same content answered 5xx on another deployment too (this request, or an earlier one). */
  reproducedElsewhere: boolean;
  /** The same content answered 5xx on this deployment in an earlier request. */
  repeatedHere: boolean;
  /** Distinct request contents that answered 5xx on this deployment since its last success. */
  failingContents: number;
}

/**
 * A 5xx is the deployment's when the same content was answered elsewhere, or when nothing says
 * otherwise (it failed once, here only). It is the request's when the content fails on other
 * deployments too or fails here again, unless `OUTAGE_CONTENTS` different contents fail here with no
 * success between: then the deployment is down for everyone (an outage), whatever the content.
 */
export function decideFaultOwner(input: FaultOwnerInput): FaultOwner {
  if (input.answered) return 'deployment';
  if (input.failingContents >= OUTAGE_CONTENTS) return 'deployment';
  return input.reproducedElsewhere || input.repeatedHere ? 'request' : 'deployment';
}

/**
 * Whether a request whose content just answered 5xx should stop failing over: once it has failed on
 * two deployments (or is known to fail wherever it goes) and was never answered, more tries cost the
 * fleet calls and teach nothing.
 */
export function isRequestFault(input: { answered: boolean; failedDeployments: number }): boolean {
  return !input.answered && input.failedDeployments >= 2;
}

/** A failed call. */
export interface ContentFailure {
  candidate: Candidate;
  error: RouterError;
}

/**
 * Statuses that speak for the server, not the request: unavailable (503) and a gateway's errors
 * (502, 504). A 500 or any other 5xx may come from what the request carries (an engine that crashes
 * on one prompt).
 */
const SERVER_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/** A failure that may follow the request content rather than the deployment: a 5xx other than 502-504. */
export function isContentFault(failure: ContentFailure): boolean {
  const { error } = failure;
  return error.code === 'UPSTREAM_SERVER_ERROR' && !SERVER_STATUSES.has(error.upstreamStatus ?? 500);
}
