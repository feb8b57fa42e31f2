import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { createCancelController } from './cancel-signal.js';
import { ERROR_CATALOGUE, isStopped, RouterError, toOpenAIErrorBody, toShutdownReason } from './errors.js';

describe('the error catalogue', () => {
  it('documents every code in the README with its status', async () => {
    const readme = await readFile('README.md', 'utf8');
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      expect(readme).toContain(`| \`${code.toLowerCase()}\` | ${entry.status} |`);
    }
  });

  it('builds OpenAI-shaped bodies whose status comes from the code', () => {
    const error = new RouterError({
      code: 'CONTEXT_LENGTH_EXCEEDED',
      message: 'too long',
      param: 'messages',
    });
    expect(error.status).toBe(400);
    expect(toOpenAIErrorBody(error, { requestId: 'r1' })).toEqual({
      error: {
        message: 'too long',
        type: 'invalid_request_error',
        code: 'context_length_exceeded',
        param: 'messages',
        request_id: 'r1',
      },
    });
  });

  it('masks internal addresses and unexpected failures for clients that are not operators', () => {
    const failed = new RouterError({
      code: 'ALL_DEPLOYMENTS_FAILED',
      message: 'all deployments for tier EXPERT failed: big: connect ECONNREFUSED 10.0.0.7:8000',
    });
    expect(toOpenAIErrorBody(failed, { revealInternal: false }).error.message).toBe(
      'all deployments for tier EXPERT failed: big: connect ECONNREFUSED <internal>',
    );
    expect(toOpenAIErrorBody(failed, { revealInternal: true }).error.message).toContain('10.0.0.7:8000');
    const internal = new RouterError({ code: 'INTERNAL', message: 'Cannot read properties of undefined' });
    expect(toOpenAIErrorBody(internal, { revealInternal: false }).error.message).not.toContain('Cannot read');
  });

  it('tells a request stopped by its client or by the shutdown from one a deployment failed', () => {
    const stopped = (code: 'CLIENT_CLOSED' | 'SHUTTING_DOWN' | 'UPSTREAM_STREAM_CUT'): boolean =>
      isStopped(new RouterError({ code, message: code }));
    expect([stopped('CLIENT_CLOSED'), stopped('SHUTTING_DOWN'), stopped('UPSTREAM_STREAM_CUT')]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it("reads SHUTTING_DOWN from a request's aborted signal, and nothing else", () => {
    const shutdown = new RouterError({ code: 'SHUTTING_DOWN', message: 'draining' });
    const drained = createCancelController();
    expect(toShutdownReason(drained.signal)).toBeUndefined();
    drained.abort(shutdown);
    expect(toShutdownReason(drained.signal)).toBe(shutdown);
    const left = createCancelController();
    left.abort(new RouterError({ code: 'CLIENT_CLOSED', message: 'gone' }));
    expect(toShutdownReason(left.signal)).toBeUndefined();
  });
});
