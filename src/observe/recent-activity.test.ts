import { describe, expect, it } from 'vitest';
import { createManualClock } from '../shared/clock.js';
import { createRecentActivity } from './recent-activity.js';
import type { RequestSummary } from './request-summary.js';

const summary = (index: number): RequestSummary => ({
  requestId: `r${index}`,
  keyName: undefined,
  endpoint: 'chat',
  stream: false,
  tier: 'SIMPLE',
  complexity: 'SIMPLE',
  cause: 'heuristic',
  confidence: 1,
  signals: [],
  llmCalled: false,
  classifierMs: {},
  rules: [],
  deployment: 'a',
  status: 200,
  errorCode: undefined,
  attempts: 1,
  fallbacks: 0,
  ttftMs: 5,
  durationMs: 10,
  promptTokens: 3,
  completionTokens: 2,
  tokenStatus: 'confirmed',
  endedAt: 0,
  content: { prompt: 'p'.repeat(1000), completion: 'c' },
});

describe('recent activity', () => {
  it('keeps the latest requests up to its cap, without their prompt and completion text', () => {
    const activity = createRecentActivity({ clock: createManualClock(0), keepRequests: 3 });
    for (let index = 0; index < 5; index += 1) activity.onRequest(summary(index));
    const { requests } = activity.snapshot();
    expect(requests.map((request) => request.requestId)).toEqual(['r4', 'r3', 'r2']);
    expect(requests.every((request) => request.content === undefined)).toBe(true);
  });
});
