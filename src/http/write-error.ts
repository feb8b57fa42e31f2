import type { ServerResponse } from 'node:http';
import { toOpenAIErrorBody, type RouterError } from '../shared/errors.js';
import { writeJson } from './write-answer.js';

/**
 * The one error mapping: a RouterError becomes its catalogue status and an OpenAI-shaped body with the
 * request id, plus `Retry-After` (whole seconds) when the error carries one and `Allow` for a 405.
 * Once headers are sent (a stream that failed later) the response is only ended.
 */
export function writeError(
  response: ServerResponse,
  failure: {
    error: RouterError;
    requestId: string;
    allow?: readonly string[] | undefined;
    /** Admin key or open mode: internal detail is shown (see toOpenAIErrorBody). */
    revealInternal: boolean;
  },
): void {
  const { error, requestId } = failure;
  if (response.headersSent) {
    response.end();
    return;
  }
  const headers: Record<string, string> = { 'x-request-id': requestId };
  if (error.retryAfterSeconds !== undefined)
    headers['retry-after'] = String(Math.ceil(error.retryAfterSeconds));
  if (failure.allow !== undefined) headers['allow'] = failure.allow.join(', ');
  writeJson(response, {
    status: error.status,
    headers,
    body: toOpenAIErrorBody(error, { requestId, revealInternal: failure.revealInternal }),
  });
}
