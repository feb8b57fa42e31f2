import { maskSecrets, redactAddresses } from './redact.js';

/**
 * The one error model of autotier. Every failure that reaches a client is a RouterError with a stable
 * code; the code decides the HTTP status and the OpenAI error type through ERROR_CATALOGUE.
 * The catalogue is documented in README.md ("Error codes") and a test keeps the two in step.
 */
export const ERROR_CATALOGUE = {
  INVALID_REQUEST: {
    status: 400,
    type: 'invalid_request_error',
    description: 'The request body or a header is malformed; `param` names the field.',
  },
  CONTEXT_LENGTH_EXCEEDED: {
    status: 400,
    type: 'invalid_request_error',
    description: 'Prompt plus max_tokens fits no eligible deployment.',
  },
  NO_VISION_DEPLOYMENT: {
    status: 400,
    type: 'invalid_request_error',
    description: 'The request has images and no vision-capable deployment is configured or eligible.',
  },
  BODY_TOO_LARGE: {
    status: 413,
    type: 'invalid_request_error',
    description: 'The request body, after decompression, is larger than the 20 MiB limit.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    type: 'invalid_request_error',
    description:
      'The body is not JSON, not UTF-8 or in an unsupported `content-encoding`; `param` names the header, or `body` for bytes that are not UTF-8.',
  },
  NOT_FOUND: {
    status: 404,
    type: 'invalid_request_error',
    description: 'No endpoint has this path; the message names the method and path.',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    type: 'invalid_request_error',
    description: 'The path exists but not for this method; the `Allow` header lists the methods it takes.',
  },
  MODEL_NOT_FOUND: {
    status: 404,
    type: 'invalid_request_error',
    description: 'The model is neither `auto`, a `tier:` alias nor a served model name.',
  },
  OVERRIDE_NOT_ALLOWED: {
    status: 403,
    type: 'permission_error',
    description:
      'The client named a model, a tier alias or x-autotier-min-tier, and overrides are disabled for its key (`allow_overrides`) or the table (`overrides.allow_client`).',
  },
  UNAUTHORIZED: {
    status: 401,
    type: 'authentication_error',
    description: 'The API key is missing or unknown.',
  },
  FORBIDDEN: {
    status: 403,
    type: 'permission_error',
    description: 'The API key may not use this model or tier.',
  },
  RATE_LIMITED: {
    status: 429,
    type: 'rate_limit_error',
    description:
      "A key's requests per minute, concurrent requests or concurrent streams are at their limit; see Retry-After.",
  },
  TPM_EXCEEDED: {
    status: 429,
    type: 'rate_limit_error',
    description:
      "The most this request may spend (every prompt, plus max_tokens for every choice) does not fit what is left of its key's tokens per minute; the message says both. See Retry-After.",
  },
  INSUFFICIENT_QUOTA: {
    status: 429,
    type: 'insufficient_quota',
    description:
      "The most this request may spend does not fit what is left of its key's daily or monthly token budget (OpenAI's code for an exhausted quota); Retry-After is the next period.",
  },
  UPSTREAM_RATE_LIMITED: { status: 429, type: 'rate_limit_error', description: 'A deployment answered 429.' },
  UPSTREAM_BAD_REQUEST: {
    status: 400,
    type: 'invalid_request_error',
    description: 'A deployment rejected the request as malformed (400, 413, 422); not retried.',
  },
  UPSTREAM_CONTEXT_LENGTH: {
    status: 400,
    type: 'invalid_request_error',
    description: 'A deployment rejected the prompt as too long for its context window.',
  },
  UPSTREAM_SERVER_ERROR: { status: 502, type: 'api_error', description: 'A deployment answered 5xx.' },
  UPSTREAM_CONNECT_FAILED: {
    status: 502,
    type: 'api_error',
    description: 'A connection to a deployment failed or was reset.',
  },
  UPSTREAM_CONNECT_TIMEOUT: {
    status: 504,
    type: 'timeout_error',
    description: 'A deployment did not accept the connection within connect_ms.',
  },
  UPSTREAM_TTFT_TIMEOUT: {
    status: 504,
    type: 'timeout_error',
    description: 'No first content token within ttft_ms.',
  },
  UPSTREAM_IDLE_TIMEOUT: {
    status: 504,
    type: 'timeout_error',
    description: 'The stream stalled for longer than idle_ms.',
  },
  UPSTREAM_STREAM_CUT: {
    status: 502,
    type: 'api_error',
    description: 'The stream ended before a finish_reason and [DONE].',
  },
  UPSTREAM_MALFORMED: {
    status: 502,
    type: 'api_error',
    description: 'A deployment sent a body or chunk that is not valid OpenAI JSON.',
  },
  DEADLINE_EXCEEDED: {
    status: 504,
    type: 'timeout_error',
    description: "The tier's total_ms elapsed across all attempts.",
  },
  ALL_DEPLOYMENTS_FAILED: {
    status: 503,
    type: 'api_error',
    description:
      'Every deployment in the tier and its fallback chain failed or is cooling down; the message lists each attempt.',
  },
  CLIENT_CLOSED: {
    status: 499,
    type: 'api_error',
    description: 'The client disconnected; the upstream request was aborted.',
  },
  SHUTTING_DOWN: {
    status: 503,
    type: 'api_error',
    description:
      'autotier is draining for a restart: a request that arrives during the drain, or one still running when the grace period ends (`AUTOTIER_SHUTDOWN_GRACE_MS`), ends with this and `Connection: close`; retry on another instance (see Retry-After).',
  },
  CONFIG_INVALID: {
    status: 500,
    type: 'api_error',
    description: 'A routing table failed validation; the message names each key path.',
  },
  INTERNAL: { status: 500, type: 'api_error', description: 'An unexpected error inside autotier.' },
} as const satisfies Record<string, { status: number; type: string; description: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export interface RouterErrorOptions {
  code: ErrorCode;
  message: string;
  /** The request field the error is about, OpenAI's `param`. */
  param?: string;
  /** Whether another attempt (on another deployment) may succeed. Decided when the error is built. */
  retryable?: boolean;
  /** Seconds the client (or the balancer) should wait, from an upstream Retry-After or a limit. */
  retryAfterSeconds?: number;
  /** The upstream HTTP status, when the error came from one. */
  upstreamStatus?: number;
  /**
   * Names in the message that only admin keys see (the table's deployment hosts and base URLs), on
   * top of the addresses every non-admin message is masked of. @default []
   */
  internalNames?: readonly string[];
  cause?: unknown;
}

export class RouterError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly param: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly upstreamStatus: number | undefined;
  readonly internalNames: readonly string[];

  constructor(options: RouterErrorOptions) {
    super(options.message, { cause: options.cause });
    this.name = 'RouterError';
    this.code = options.code;
    this.status = ERROR_CATALOGUE[options.code].status;
    this.retryable = options.retryable ?? false;
    this.param = options.param;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.upstreamStatus = options.upstreamStatus;
    this.internalNames = options.internalNames ?? [];
  }
}

/** The same error with more names hidden from non-admin keys (see RouterErrorOptions.internalNames). */
export function withInternalNames(error: RouterError, names: readonly string[]): RouterError {
  if (names.length === 0) return error;
  const copy = new RouterError({
    code: error.code,
    message: error.message,
    ...(error.param === undefined ? {} : { param: error.param }),
    retryable: error.retryable,
    ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
    ...(error.upstreamStatus === undefined ? {} : { upstreamStatus: error.upstreamStatus }),
    internalNames: [...new Set([...error.internalNames, ...names])],
    cause: error.cause,
  });
  if (error.stack !== undefined) copy.stack = error.stack;
  return copy;
}

export function isRouterError(value: unknown): value is RouterError {
  return value instanceof RouterError;
}

/** The request was stopped by its client (CLIENT_CLOSED) or by autotier's shutdown (SHUTTING_DOWN), not by a deployment. */
export function isStopped(error: RouterError): boolean {
  return error.code === 'CLIENT_CLOSED' || error.code === 'SHUTTING_DOWN';
}

/** The SHUTTING_DOWN error a request's signal was aborted with, or undefined (not aborted, or by its client). */
export function toShutdownReason(signal: { aborted: boolean; reason: unknown }): RouterError | undefined {
  const reason = signal.aborted ? signal.reason : undefined;
  return reason instanceof RouterError && reason.code === 'SHUTTING_DOWN' ? reason : undefined;
}

/** Any thrown value as a RouterError; unknown errors become INTERNAL. */
export function toRouterError(value: unknown): RouterError {
  if (value instanceof RouterError) return value;
  const message = value instanceof Error ? value.message : String(value);
  return new RouterError({ code: 'INTERNAL', message, cause: value });
}

export interface OpenAIErrorBody {
  error: { message: string; type: string; code: string; param: string | null; request_id?: string };
}

/** Who reads an error: internal detail (addresses, unexpected failures) is for operators only. */
export interface ErrorAudience {
  requestId?: string | undefined;
  /**
   * True for an admin key or open mode: the message is shown with credentials masked. Otherwise URLs,
   * IP addresses, host:port pairs, private host names and the error's internal names are masked too,
   * and an INTERNAL error says only that it happened. @default true
   */
  revealInternal?: boolean | undefined;
}

/** Credentials are masked for every audience; addresses and internal names for non-admin keys. */
function toClientMessage(error: RouterError, revealInternal: boolean): string {
  if (revealInternal) return maskSecrets(error.message);
  if (error.code === 'INTERNAL')
    return 'an unexpected error inside autotier; the request id finds it in the logs';
  return redactAddresses(maskSecrets(error.message), error.internalNames);
}

/** The OpenAI-shaped body clients receive; `code` is the lower-case form of the stable code. */
export function toOpenAIErrorBody(error: RouterError, audience: ErrorAudience = {}): OpenAIErrorBody {
  const { requestId } = audience;
  return {
    error: {
      message: toClientMessage(error, audience.revealInternal ?? true),
      type: ERROR_CATALOGUE[error.code].type,
      code: error.code.toLowerCase(),
      param: error.param ?? null,
      ...(requestId === undefined ? {} : { request_id: requestId }),
    },
  };
}
