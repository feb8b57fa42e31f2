import type { RequestSummary } from './request-summary.js';

/**
 * How a request ended, as the dashboard's history counts it:
 * - `ok`: answered without an error;
 * - `error`: routed and failed upstream or inside autotier (UPSTREAM_*, deadlines, all deployments
 *   failed, 5xx);
 * - `rejected`: autotier refused it itself (a client mistake, a key or limit, shutting down), whether
 *   before routing or after the decision (a TPM limit, a context window no deployment has);
 * - `cancelled`: the client went away (CLIENT_CLOSED).
 */
export type RequestClass = 'ok' | 'error' | 'rejected' | 'cancelled';

/** Why a request was refused, grouped for a chart: few groups, each with its own colour. */
export type RejectionKind = 'invalid' | 'auth' | 'limit' | 'shutting_down' | 'other';

export const REJECTION_KINDS: readonly RejectionKind[] = [
  'invalid',
  'auth',
  'limit',
  'shutting_down',
  'other',
];

type Ending = Pick<RequestSummary, 'outcome' | 'status' | 'errorCode'>;

export function toRequestClass(request: Ending): RequestClass {
  const code = request.errorCode;
  if (request.outcome === 'rejected') return code === 'CLIENT_CLOSED' ? 'cancelled' : 'rejected';
  if (code === undefined) return request.status >= 400 ? 'error' : 'ok';
  if (code === 'CLIENT_CLOSED') return 'cancelled';
  if (code.startsWith('UPSTREAM_') || (request.status >= 500 && code !== 'SHUTTING_DOWN')) return 'error';
  return 'rejected';
}

/** The group of a refused request (see RequestClass): by its code, else by its status. */
export function toRejectionKind(request: Ending): RejectionKind {
  if (request.errorCode === 'SHUTTING_DOWN') return 'shutting_down';
  if (request.status === 401 || request.status === 403) return 'auth';
  if (request.status === 429) return 'limit';
  if (request.status >= 400 && request.status < 500) return 'invalid';
  return 'other';
}
