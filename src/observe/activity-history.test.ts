import { describe, expect, it } from 'vitest';
import { createManualClock } from '../shared/clock.js';
import { createActivityHistory, OTHER, type HistoryRequest } from './activity-history.js';

const MINUTE = 60_000;
/** A start on a bucket boundary, so `advance(MINUTE)` moves exactly one bucket. */
const START = 1_700_000_040_000;

function routed(overrides: Partial<HistoryRequest> = {}): HistoryRequest {
  return {
    endpoint: 'chat',
    outcome: 'routed',
    status: 200,
    errorCode: undefined,
    tier: 'SIMPLE',
    deployment: 'small',
    fallbacks: 0,
    ttftMs: 120,
    upstreamTtftMs: 100,
    durationMs: 400,
    ...overrides,
  };
}

function refused(status: number, errorCode: string, endpoint = 'chat'): HistoryRequest {
  return routed({ outcome: 'rejected', status, errorCode, tier: undefined, deployment: undefined, endpoint });
}

const last = <T>(values: readonly T[]): T | undefined => values[values.length - 1];
const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);

describe('activity history', () => {
  it('starts with 60 empty one-minute buckets ending at the current minute', () => {
    const clock = createManualClock(START + 25_000);
    const snapshot = createActivityHistory({ clock }).snapshot();
    expect(snapshot).toMatchObject({ bucketMs: MINUTE, buckets: 60, scope: 'process' });
    expect(snapshot.start).toBe(START - 59 * MINUTE);
    expect(snapshot.requests.ok).toEqual(Array(60).fill(0));
    expect(snapshot.latencyMs.p95).toEqual(Array(60).fill(null));
    expect(snapshot.tiers).toEqual({});
    expect(snapshot.deployments).toEqual({});
    expect(snapshot.totals).toEqual({
      requests: 0,
      errors: 0,
      rejected: 0,
      latencyP50Ms: null,
      latencyP95Ms: null,
    });
  });

  it('counts requests per tier, class and endpoint in the current bucket, and rolls over each minute', () => {
    const clock = createManualClock(START);
    const history = createActivityHistory({ clock });
    history.record(routed());
    history.record(routed({ tier: 'EXPERT', deployment: 'huge' }));
    history.record(routed({ status: 502, errorCode: 'UPSTREAM_SERVER_ERROR', tier: 'EXPERT' }));
    clock.advance(MINUTE - 1);
    history.record(routed({ endpoint: 'completions', tier: 'AUTOCOMPLETE' }));
    clock.advance(1);
    history.record(refused(429, 'RATE_LIMITED'));
    history.record(refused(404, 'NOT_FOUND', 'unknown'));
    const snapshot = history.snapshot();
    expect(snapshot.start).toBe(START + MINUTE - 59 * MINUTE);
    expect(snapshot.requests.ok.slice(-2)).toEqual([3, 0]);
    expect(snapshot.requests.error.slice(-2)).toEqual([1, 0]);
    expect(snapshot.requests.rejected.slice(-2)).toEqual([0, 2]);
    expect(snapshot.tiers['SIMPLE']?.slice(-2)).toEqual([1, 0]);
    expect(snapshot.tiers['EXPERT']?.slice(-2)).toEqual([2, 0]);
    expect(snapshot.tiers['AUTOCOMPLETE']?.slice(-2)).toEqual([1, 0]);
    expect(snapshot.endpoints['chat']?.slice(-2)).toEqual([3, 1]);
    expect(snapshot.endpoints['completions']?.slice(-2)).toEqual([1, 0]);
    expect(snapshot.endpoints['unknown']?.slice(-2)).toEqual([0, 1]);
    expect(snapshot.rejected.limit.slice(-2)).toEqual([0, 1]);
    expect(snapshot.rejected.invalid.slice(-2)).toEqual([0, 1]);
    expect(snapshot.totals).toMatchObject({ requests: 6, errors: 1, rejected: 2 });
  });

  it('keeps refused requests apart from upstream errors, by kind, and client disconnects apart from both', () => {
    const clock = createManualClock(START);
    const history = createActivityHistory({ clock });
    history.record(refused(401, 'UNAUTHORIZED'));
    history.record(refused(403, 'FORBIDDEN'));
    history.record(refused(415, 'UNSUPPORTED_MEDIA_TYPE'));
    history.record(refused(503, 'SHUTTING_DOWN'));
    // after the decision: a key's token limit and a drain are refusals too; a 504 is an error
    history.record(routed({ status: 429, errorCode: 'RATE_LIMITED' }));
    history.record(routed({ status: 503, errorCode: 'SHUTTING_DOWN' }));
    history.record(routed({ status: 504, errorCode: 'UPSTREAM_TTFT_TIMEOUT' }));
    history.record(routed({ status: 400, errorCode: 'UPSTREAM_BAD_REQUEST' }));
    history.record(routed({ status: 499, errorCode: 'CLIENT_CLOSED' }));
    const { requests, rejected } = history.snapshot();
    expect([
      last(requests.ok),
      last(requests.error),
      last(requests.rejected),
      last(requests.cancelled),
    ]).toEqual([0, 2, 6, 1]);
    expect(last(rejected.auth)).toBe(2);
    expect(last(rejected.invalid)).toBe(1);
    expect(last(rejected.limit)).toBe(1);
    expect(last(rejected.shutting_down)).toBe(2);
    expect(last(rejected.other)).toBe(0);
  });

  it('gives latency and per-deployment TTFT percentiles per bucket, and error rates from the calls', () => {
    const clock = createManualClock(START);
    const history = createActivityHistory({ clock });
    for (let index = 1; index <= 100; index += 1)
      history.record(routed({ durationMs: index * 10, upstreamTtftMs: index, deployment: 'small' }));
    for (let index = 0; index < 4; index += 1)
      history.recordAttempt({ deploymentId: 'small', called: true, outcome: 'OK' });
    history.recordAttempt({ deploymentId: 'flaky', called: true, outcome: 'UPSTREAM_SERVER_ERROR' });
    history.recordAttempt({ deploymentId: 'small', called: true, outcome: 'OK', fallback: true });
    history.recordAttempt({ deploymentId: 'cold', called: false, outcome: 'COOLING_DOWN' });
    history.recordAttempt({ deploymentId: 'small', called: true, outcome: 'CLIENT_CLOSED' });
    const snapshot = history.snapshot();
    const p50 = last(snapshot.latencyMs.p50) ?? NaN;
    const p95 = last(snapshot.latencyMs.p95) ?? NaN;
    expect(Math.abs(p50 - 500) / 500).toBeLessThan(0.05);
    expect(Math.abs(p95 - 950) / 950).toBeLessThan(0.05);
    expect(snapshot.latencyMs.p50[58]).toBeNull();
    const small = snapshot.deployments['small'];
    expect(last(small?.attempts ?? [])).toBe(6);
    expect(last(small?.failures ?? [])).toBe(0);
    expect(Math.abs((small?.total.ttftP95Ms ?? NaN) - 95) / 95).toBeLessThan(0.05);
    expect(snapshot.deployments['flaky']?.total).toEqual({
      attempts: 1,
      failures: 1,
      ttftP50Ms: null,
      ttftP95Ms: null,
    });
    expect(snapshot.deployments['cold']).toBeUndefined();
    expect(last(snapshot.fallbacks)).toBe(1);
  });

  it('forgets a bucket once it is an hour old, and after a quiet gap shows the gap as empty', () => {
    const clock = createManualClock(START);
    const history = createActivityHistory({ clock });
    history.record(routed({ tier: 'COMPLEX' }));
    clock.advance(59 * MINUTE);
    history.record(routed());
    let snapshot = history.snapshot();
    expect(snapshot.requests.ok[0]).toBe(1);
    expect(last(snapshot.requests.ok)).toBe(1);
    expect(sum(snapshot.tiers['COMPLEX'] ?? [])).toBe(1);
    clock.advance(MINUTE);
    snapshot = history.snapshot();
    expect(sum(snapshot.requests.ok)).toBe(1);
    expect(snapshot.requests.ok[58]).toBe(1);
    expect(snapshot.tiers['COMPLEX']).toBeUndefined();
    // three hours with no traffic: the old buckets' slots are stale, nothing shows
    clock.advance(180 * MINUTE);
    expect(sum(history.snapshot().requests.ok)).toBe(0);
    expect(history.snapshot().totals.requests).toBe(0);
  });

  it('keeps the hour-wide percentiles current across polls, rollovers and expiry', () => {
    const clock = createManualClock(START);
    const history = createActivityHistory({ clock });
    history.record(routed({ durationMs: 100, upstreamTtftMs: 10 }));
    clock.advance(MINUTE);
    history.record(routed({ durationMs: 100, upstreamTtftMs: 10 }));
    expect(history.snapshot().totals.latencyP95Ms).toBe(100);
    // a poll in the same minute sees what arrived since the last one
    for (let index = 0; index < 5; index += 1)
      history.record(routed({ durationMs: 5000, upstreamTtftMs: 800 }));
    let snapshot = history.snapshot();
    expect(snapshot.totals.latencyP50Ms).toBeGreaterThan(4500);
    expect(snapshot.deployments['small']?.total.ttftP95Ms).toBe(800);
    expect(snapshot.deployments['small']?.total.ttftP50Ms).toBeGreaterThan(700);
    // an hour after the slow minute only the first request's bucket is gone
    clock.advance(59 * MINUTE);
    snapshot = history.snapshot();
    expect(snapshot.totals.requests).toBe(6);
    clock.advance(MINUTE);
    snapshot = history.snapshot();
    expect(snapshot.totals.requests).toBe(0);
    expect(snapshot.totals.latencyP95Ms).toBeNull();
    expect(snapshot.deployments['small']).toBeUndefined();
  });

  it('stays within its buckets and label caps under a day of traffic with ever new labels', () => {
    const clock = createManualClock(START);
    const history = createActivityHistory({ clock });
    for (let minute = 0; minute < 24 * 60; minute += 1) {
      for (let index = 0; index < 5; index += 1) {
        const label = `x${minute}-${index}`;
        history.record(routed({ endpoint: label, tier: label, deployment: label }));
        history.recordAttempt({ deploymentId: label, called: true, outcome: 'OK' });
      }
      clock.advance(MINUTE);
    }
    for (let index = 0; index < 500; index += 1) {
      history.record(routed({ endpoint: `e${index}`, tier: `t${index}`, deployment: `d${index}` }));
      history.recordAttempt({ deploymentId: `d${index}`, called: true, outcome: 'OK' });
    }
    expect(history.allocatedBuckets()).toBe(60);
    const snapshot = history.snapshot();
    expect(Object.keys(snapshot.endpoints).length).toBeLessThanOrEqual(16 * 60);
    const newest = Object.entries(snapshot.tiers).filter(([, counts]) => (last(counts) ?? 0) > 0);
    expect(newest.length).toBe(16);
    expect(last(snapshot.tiers[OTHER] ?? [])).toBe(500 - 15);
    const deploymentsNow = Object.values(snapshot.deployments).filter(
      (entry) => (last(entry.attempts) ?? 0) > 0,
    );
    expect(deploymentsNow.length).toBe(64);
    expect(JSON.stringify(snapshot).length).toBeLessThan(2_000_000);
  });

  it('reads RequestSummary and AttemptSummary as a request observer', () => {
    const clock = createManualClock(START);
    const history = createActivityHistory({ clock });
    history.onAttempt({
      requestId: 'r1',
      tier: 'SIMPLE',
      deploymentId: 'small',
      attempt: 1,
      outcome: 'OK',
      called: true,
      fallback: false,
      durationMs: 30,
    });
    expect(last(history.snapshot().deployments['small']?.attempts ?? [])).toBe(1);
  });
});
