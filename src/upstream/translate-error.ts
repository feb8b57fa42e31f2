import { RouterError } from '../shared/errors.js';
import { redactSecrets } from '../shared/redact.js';

/** vLLM and OpenAI phrase context overflows in a few ways; any of these means "too long here". */
const CONTEXT_LENGTH_PATTERN =
  /maximum context length|context length|context window|too many tokens|prompt is too long|longer than the maximum model length/i;

/** Statuses that say "this request is malformed"; another deployment would reject it too. */
const REQUEST_SHAPED_STATUSES: ReadonlySet<number> = new Set([400, 413, 422]);

/** Retry-After as seconds: delta-seconds or an HTTP date (RFC 9110 section 10.2.3). */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/** The human message inside an upstream error body, whatever shape it has. */
export function toUpstreamMessage(bodyText: string): string {
  try {
    const parsed = JSON.parse(bodyText) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof parsed.error === 'object' && typeof parsed.error.message === 'string')
      return parsed.error.message;
    if (typeof parsed.error === 'string') return parsed.error;
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: fall through to the raw text
  }
  return bodyText.slice(0, 500);
}

export interface UpstreamStatusError {
  status: number;
  bodyText: string;
  retryAfter: string | undefined;
  deploymentId: string;
  now: number;
  /** Secret values (the deployment's API key) masked in the upstream's text. @default [] */
  secrets?: readonly string[];
}

/** An upstream HTTP error status as a RouterError, with `retryable` decided here, once. */
export function toErrorFromStatus(failure: UpstreamStatusError): RouterError {
  const upstreamMessage = redactSecrets(toUpstreamMessage(failure.bodyText), failure.secrets);
  const message = `${failure.deploymentId} answered ${failure.status}: ${upstreamMessage}`;
  const base = { message, upstreamStatus: failure.status };
  if (failure.status === 429) {
    const retryAfterSeconds = parseRetryAfter(failure.retryAfter, failure.now);
    return new RouterError({
      ...base,
      code: 'UPSTREAM_RATE_LIMITED',
      retryable: true,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    });
  }
  if (REQUEST_SHAPED_STATUSES.has(failure.status)) {
    if (CONTEXT_LENGTH_PATTERN.test(upstreamMessage)) {
      return new RouterError({ ...base, code: 'UPSTREAM_CONTEXT_LENGTH', retryable: true });
    }
    return new RouterError({ ...base, code: 'UPSTREAM_BAD_REQUEST', retryable: false });
  }
  return new RouterError({ ...base, code: 'UPSTREAM_SERVER_ERROR', retryable: true });
}

const CONNECT_TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
]);

function toErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return toErrorCode((error as { cause?: unknown }).cause);
}

/** A thrown undici/network error as a RouterError (connection refused, reset, timeouts). */
export function toErrorFromException(
  error: unknown,
  source: { deploymentId: string; secrets?: readonly string[] },
): RouterError {
  if (error instanceof RouterError) return error;
  const { deploymentId } = source;
  const code = toErrorCode(error) ?? 'UNKNOWN';
  const detail = redactSecrets(error instanceof Error ? error.message : String(error), source.secrets);
  if (CONNECT_TIMEOUT_CODES.has(code)) {
    return new RouterError({
      code: 'UPSTREAM_CONNECT_TIMEOUT',
      message: `${deploymentId}: no response headers in time (${code})`,
      retryable: true,
      cause: error,
    });
  }
  return new RouterError({
    code: 'UPSTREAM_CONNECT_FAILED',
    message: `${deploymentId}: connection failed (${code}: ${detail})`,
    retryable: true,
    cause: error,
  });
}

/**
 * Socket codes of a connection the server dropped (reset, or closed under a pooled request): a
 * transient failure, unlike a refused connection (ECONNREFUSED: nothing listens, the server is down).
 */
const CONNECTION_RESET_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/** True for an UPSTREAM_CONNECT_FAILED whose cause is a reset before response headers. */
export function isConnectionReset(error: RouterError): boolean {
  if (error.code !== 'UPSTREAM_CONNECT_FAILED') return false;
  const code = toErrorCode(error.cause);
  return code !== undefined && CONNECTION_RESET_CODES.has(code);
}
