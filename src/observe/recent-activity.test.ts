import { describe, expect, it } from 'vitest';
import { createRecentActivity } from './recent-activity.js';
import { toLoggedPath, type RequestSummary } from './request-summary.js';

/** A request that autotier answered itself: no routing, no tokens. */
function toRejectedSummary(rejection: {
  requestId: string;
  keyName: string | undefined;
  endpoint: RequestSummary['endpoint'];
  http: { method: string; path: string };
  status: number;
  errorCode: string;
  errorMessage: string;
  receivedAt: number;
  endedAt: number;
}): RequestSummary {
  return {
    requestId: rejection.requestId,
    keyName: rejection.keyName,
    endpoint: rejection.endpoint,
    outcome: 'rejected',
    method: rejection.http.method,
    path: toLoggedPath(rejection.http.path),
    stream: false,
    tier: undefined,
    complexity: undefined,
    cause: undefined,
    confidence: undefined,
    signals: [],
    llmCalled: false,
    classifierMs: {},
    rules: [],
    deployment: undefined,
    status: rejection.status,
    errorCode: rejection.errorCode,
    errorMessage: rejection.errorMessage,
    attempts: 0,
    fallbacks: 0,
    ttftMs: undefined,
    durationMs: rejection.endedAt - rejection.receivedAt,
    promptTokens: undefined,
    completionTokens: undefined,
    tokenStatus: 'unknown',
    endedAt: rejection.endedAt,
  };
}

const clock = { now: () => 1_000_000 };

function routed(requestId: string, endedAt: number): RequestSummary {
  return {
    ...toRejectedSummary({
      requestId,
      keyName: undefined,
      endpoint: 'chat',
      http: { method: 'POST', path: '/v1/chat/completions' },
      status: 200,
      errorCode: 'none',
      errorMessage: '',
      receivedAt: endedAt - 10,
      endedAt,
    }),
    outcome: 'routed',
    tier: 'SIMPLE',
    cause: 'heuristic',
    errorCode: undefined,
    errorMessage: undefined,
  };
}

function rejected(requestId: string, endedAt: number): RequestSummary {
  return toRejectedSummary({
    requestId,
    keyName: undefined,
    endpoint: 'unknown',
    http: { method: 'GET', path: `/probe/${'x'.repeat(500)}` },
    status: 404,
    errorCode: 'NOT_FOUND',
    errorMessage: 'no endpoint',
    receivedAt: endedAt,
    endedAt,
  });
}

describe('recent activity for the dashboard', () => {
  it('keeps rejected requests apart, so a flood of them cannot push routed ones out', () => {
    const activity = createRecentActivity({ clock, keepRequests: 3, keepRejected: 2 });
    activity.onRequest(routed('r1', 999_000));
    activity.onRequest(routed('r2', 999_100));
    for (let index = 0; index < 1000; index += 1) activity.onRequest(rejected(`x${index}`, 999_200 + index));
    const snapshot = activity.snapshot();
    expect(snapshot.requests.map((request) => request.requestId)).toEqual(['x999', 'x998', 'r2', 'r1']);
  });

  it('counts routed requests per tier and cause, rejected ones per code only', () => {
    const activity = createRecentActivity({ clock });
    activity.onRequest(routed('r1', 999_000));
    activity.onRequest(rejected('x1', 999_500));
    activity.onRequest(rejected('x2', 999_600));
    const snapshot = activity.snapshot();
    expect(snapshot.byTier).toEqual({ SIMPLE: 1 });
    expect(snapshot.byCause).toEqual({ heuristic: 1 });
    expect(snapshot.byRejectedCode).toEqual({ NOT_FOUND: 2 });
  });

  it('cuts the client path of a rejection to 200 characters', () => {
    expect(rejected('x', 0).path).toHaveLength(201);
  });

  it('keeps no prompt or completion text (content logging puts it in the log only)', () => {
    const activity = createRecentActivity({ clock });
    activity.onRequest({ ...routed('r1', 999_000), content: { prompt: 'p'.repeat(1000), completion: 'c' } });
    expect(activity.snapshot().requests[0]?.content).toBeUndefined();
  });

  it('shows the dashboard error messages with their credentials masked', () => {
    const activity = createRecentActivity({ clock });
    activity.onRequest({
      ...rejected('r1', 1_000_000),
      errorMessage: 'bad key sk-proj-4kS9mP2qR7tV1wX3yZ5a',
    });
    expect(activity.snapshot().requests[0]?.errorMessage).toBe('bad key ***');
  });
});
