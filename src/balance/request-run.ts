import type { ExecuteRequest } from './balancer.js';
import type { HeldFailure } from './balancer-faults.js';
import type { InPlaceSpent } from './decide-retry-in-place.js';
import { NO_FAILURES, type FailureNotes } from './note-failure.js';
import type { AttemptRecord } from './route-plan.js';

/** The state of one request across its attempts. */
export interface RequestRun {
  request: ExecuteRequest;
  deadlineAt: number;
  attempts: AttemptRecord[];
  /** Time spent waiting on upstreams before the commit point, ms. */
  upstreamMs: number;
  calls: number;
  notes: FailureNotes;
  /** In-place retries spent, by deployment id; made at the first one (most requests never retry). */
  inPlace?: Map<string, InPlaceSpent>;
  /** SHA-256 of the request content, made at its first 5xx (or answer while 5xx are remembered). */
  fingerprint?: string;
  /** 5xx whose bench waits for the end of the request (balancer-faults.ts). */
  held?: HeldFailure[];
}

/** A request's run before its first attempt; its deadline is the plan's `total_ms` from its start. */
export function startRun(request: ExecuteRequest): RequestRun {
  const deadlineAt = request.startedAt + request.plan.timeouts.total_ms;
  return { request, deadlineAt, attempts: [], upstreamMs: 0, calls: 0, notes: NO_FAILURES };
}
