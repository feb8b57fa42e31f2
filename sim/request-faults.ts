import type { ServerResponse } from 'node:http';
import type { SimError } from './error-body.js';
import { toFaultNumber, type FaultSpec } from './fault-spec.js';
import type { FaultState } from './fault-state.js';
import { sendError } from './respond.js';

export interface EarlyFaultContext {
  response: ServerResponse;
  fault: FaultSpec;
  state: FaultState;
  /** vLLM's context-length error for this request, in the wording the fault asks for. */
  toContextError: (wording: 'current' | 'legacy') => SimError;
}

/** `Retry-After` of the `rate_limit` fault, in seconds. @default 1 */
const DEFAULT_RETRY_AFTER_S = 1;
/** Requests per phase of the `flapping` fault. @default 1 */
const DEFAULT_FLAPPING_PERIOD = 1;

const INTERNAL_ERROR: SimError = {
  status: 500,
  message: 'Internal server error',
  type: 'InternalServerError',
};
const UNAVAILABLE: SimError = {
  status: 503,
  message: 'Service Unavailable',
  type: 'ServiceUnavailableError',
};

/**
 * Applies the faults that strike before any reply byte. Returns true when the request is settled by the
 * fault (an error answer, a reset socket, or a deliberate silence), false when generation should go on.
 */
export function applyEarlyFault(context: EarlyFaultContext): boolean {
  const { response, fault } = context;
  switch (fault.name) {
    case 'rate_limit': {
      const seconds = toFaultNumber(fault, 'seconds', DEFAULT_RETRY_AFTER_S);
      sendError(response, toRateLimitError(), { 'retry-after': String(seconds) });
      return true;
    }
    case 'rate_limit_no_retry_after':
      sendError(response, toRateLimitError());
      return true;
    case 'error_500_once':
      return context.state.takeFirstFailure() && settle(response, INTERNAL_ERROR);
    case 'error_503':
      return settle(response, UNAVAILABLE);
    case 'flapping': {
      const period = toFaultNumber(fault, 'period', DEFAULT_FLAPPING_PERIOD);
      return context.state.isFlappingFailure(period) && settle(response, UNAVAILABLE);
    }
    case 'reset_before_headers':
      response.socket?.resetAndDestroy();
      return true;
    case 'no_response':
      return true; // keep the socket open until the client aborts or close() runs
    case 'context_length':
      return settle(
        response,
        context.toContextError(fault.params?.['wording'] === 'legacy' ? 'legacy' : 'current'),
      );
    case 'bad_request':
      return settle(response, {
        status: 400,
        message: 'temperature must be non-negative, got -1.0.',
        param: 'temperature',
      });
    case 'headers_then_nothing':
    case 'slow_first_token':
    case 'cut_mid_stream':
    case 'stall_mid_stream':
    case 'malformed_chunk':
    case 'no_done':
    case 'empty_chunks':
      return false; // these strike while answering: send-completion.ts and stream-script.ts
  }
}

const SERVER_DOWN_FAULTS: ReadonlySet<string> = new Set(['error_503', 'reset_before_headers', 'no_response']);

/**
 * Backend-wide faults that stand for a dead server or engine, and so strike /health and /v1/models
 * too (vLLM's /health fails once its engine is dead): `error_503` answers 503, `reset_before_headers`
 * resets the connection, `no_response` stays silent. Every other fault (rate limits, flapping, slow or
 * cut streams) leaves those routes answering, as a live server would. True when the fault answered.
 */
export function applyServerDownFault(response: ServerResponse, fault: FaultSpec): boolean {
  if (!SERVER_DOWN_FAULTS.has(fault.name)) return false;
  if (fault.name === 'error_503') return settle(response, UNAVAILABLE);
  if (fault.name === 'reset_before_headers') response.socket?.resetAndDestroy();
  return true; // no_response: silent until the client gives up or close() runs
}

function settle(response: ServerResponse, error: SimError): true {
  sendError(response, error);
  return true;
}

function toRateLimitError(): SimError {
  return {
    status: 429,
    message: 'Too many requests: rate limit exceeded, retry later.',
    type: 'RateLimitError',
  };
}
