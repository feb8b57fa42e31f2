import { isStopped, type RouterError } from '../shared/errors.js';
import type { Candidate } from './to-candidates.js';

/** What the failed attempts of a request so far say about its next ones. */
export interface FailureNotes {
  /** After a context-length rejection, only deployments with a larger window are worth a call. */
  minimumWindow: number;
  /** Candidates worth another round: a group's only deployment that answered 429. */
  retryable: readonly Candidate[];
  /** Largest Retry-After among `retryable`, in seconds. */
  retryAfterSeconds: number | undefined;
}

export const NO_FAILURES: FailureNotes = { minimumWindow: 0, retryable: [], retryAfterSeconds: undefined };

/**
 * Folds one failed attempt into the notes. Throws `error` when it ends the request: the client left
 * or autotier is shutting down, or the failure is not retryable (a request-shaped 400 would fail the same way anywhere).
 */
export function noteFailure(notes: FailureNotes, candidate: Candidate, error: RouterError): FailureNotes {
  if (isStopped(error) || !error.retryable) throw error;
  if (error.code === 'UPSTREAM_CONTEXT_LENGTH')
    return { ...notes, minimumWindow: Math.max(notes.minimumWindow, candidate.deployment.context_window) };
  if (error.code === 'UPSTREAM_RATE_LIMITED' && candidate.groupSize <= 1) {
    return {
      ...notes,
      retryable: [...notes.retryable, candidate],
      retryAfterSeconds: Math.max(notes.retryAfterSeconds ?? 0, error.retryAfterSeconds ?? 0),
    };
  }
  return notes;
}
