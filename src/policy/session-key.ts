import { createHash } from 'node:crypto';

/**
 * Characters of a session id that name the session (4096). A longer id is accepted and cut here, so
 * hashing it is bounded work whatever the client sends (the `user` field may be megabytes long).
 */
export const SESSION_ID_MAX_CHARS = 4096;

export interface SessionId {
  /** The authenticated API key's name; undefined in open mode. */
  keyName: string | undefined;
  /** `x-session-id`, or the request's `user` field when the table says so. */
  sessionId: string | undefined;
}

/**
 * The store key of a session ladder: SHA-256 (base64url, 43 characters) of the key name and the
 * session id, so two API keys never share a ladder and an id of any length costs the same memory.
 * Undefined when the request names no session (no id, or an empty one).
 */
export function toSessionKey(session: SessionId): string | undefined {
  const { sessionId } = session;
  if (sessionId === undefined || sessionId === '') return undefined;
  const named = JSON.stringify([session.keyName ?? null, sessionId.slice(0, SESSION_ID_MAX_CHARS)]);
  return createHash('sha256').update(named).digest('base64url');
}
