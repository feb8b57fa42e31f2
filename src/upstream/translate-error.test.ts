import { describe, expect, it } from 'vitest';
import { RouterError } from '../shared/errors.js';
import {
  isConnectionReset,
  parseRetryAfter,
  toErrorFromException,
  toErrorFromStatus,
} from './translate-error.js';

const failure = {
  bodyText: '{"error":{"message":"boom"}}',
  retryAfter: undefined,
  deploymentId: 'd',
  now: 0,
};

describe('upstream error translation', () => {
  it('turns a 429 into a retryable rate-limit error carrying Retry-After', () => {
    const error = toErrorFromStatus({ ...failure, status: 429, retryAfter: '7' });
    expect(error).toMatchObject({ code: 'UPSTREAM_RATE_LIMITED', retryable: true, retryAfterSeconds: 7 });
  });

  it("recognizes vLLM's context-length 400 as retryable on a larger window", () => {
    const bodyText = JSON.stringify({
      error: {
        message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens",
      },
    });
    expect(toErrorFromStatus({ ...failure, status: 400, bodyText })).toMatchObject({
      code: 'UPSTREAM_CONTEXT_LENGTH',
      retryable: true,
      status: 400,
    });
  });

  it('does not retry other request-shaped errors', () => {
    for (const status of [400, 413, 422])
      expect(toErrorFromStatus({ ...failure, status })).toMatchObject({
        code: 'UPSTREAM_BAD_REQUEST',
        retryable: false,
      });
  });

  it('retries 5xx and names the deployment and message', () => {
    const error = toErrorFromStatus({ ...failure, status: 503 });
    expect(error).toMatchObject({ code: 'UPSTREAM_SERVER_ERROR', retryable: true });
    expect(error.message).toBe('d answered 503: boom');
  });

  it('parses Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('3', 0)).toBe(3);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4000)).toBe(6);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
  });

  it('maps undici timeouts and resets to retryable errors', () => {
    expect(
      toErrorFromException(Object.assign(new Error('x'), { code: 'UND_ERR_HEADERS_TIMEOUT' }), {
        deploymentId: 'd',
      }).code,
    ).toBe('UPSTREAM_CONNECT_TIMEOUT');
    expect(
      toErrorFromException(Object.assign(new Error('x'), { code: 'ECONNRESET' }), { deploymentId: 'd' }),
    ).toMatchObject({
      code: 'UPSTREAM_CONNECT_FAILED',
      retryable: true,
    });
  });

  it('tells a connection reset (transient) from a refused connection (server down)', () => {
    const failed = (code: string) =>
      toErrorFromException(Object.assign(new Error(code), { code }), { deploymentId: 'd' });
    expect(isConnectionReset(failed('ECONNRESET'))).toBe(true);
    expect(isConnectionReset(failed('UND_ERR_SOCKET'))).toBe(true);
    expect(isConnectionReset(failed('ECONNREFUSED'))).toBe(false);
    expect(isConnectionReset(failed('UND_ERR_CONNECT_TIMEOUT'))).toBe(false);
    expect(isConnectionReset(new RouterError({ code: 'UPSTREAM_CONNECT_FAILED', message: 'no cause' }))).toBe(
      false,
    );
  });

  it('masks an echoed Authorization header and the deployment key in the upstream message', () => {
    const error = toErrorFromStatus({
      status: 400,
      bodyText: JSON.stringify({
        error: { message: 'invalid header Authorization: Bearer vllm-key-1234 (key vllm-key-1234)' },
      }),
      retryAfter: undefined,
      deploymentId: 'd',
      now: 0,
      secrets: ['vllm-key-1234'],
    });
    expect(error.message).toContain('d answered 400: invalid header');
    expect(error.message).not.toContain('vllm-key-1234');
  });
});
