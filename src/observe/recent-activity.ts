import type { Clock } from '../shared/clock.js';
import { maskSecrets } from '../shared/redact.js';
import type { AttemptSummary, RequestObserver, RequestSummary } from './request-summary.js';

export interface RecentActivityOptions {
  clock: Clock;
  /** Latest routed request summaries kept for the dashboard. @default 200 */
  keepRequests?: number;
  /** Latest rejected ones, kept apart so a flood of rejections cannot push routed ones out. @default 100 */
  keepRejected?: number;
  /** Window of the recent error counts and rates, ms. @default 300000 (5 minutes) */
  windowMs?: number;
}

export interface ActivitySnapshot {
  /** Routed and rejected requests, newest first (each has its `outcome`). */
  requests: readonly RequestSummary[];
  /** Failed upstream attempts per deployment within the window. */
  recentErrors: Record<string, Record<string, number>>;
  /** Routed requests per tier and per cause within the window. */
  byTier: Record<string, number>;
  byCause: Record<string, number>;
  /** Rejected requests per error code within the window. */
  byRejectedCode: Record<string, number>;
  /** Requests within the window that called the classifier LLM, and their LLM latency p50/p95 (ms). */
  llm: { calls: number; classified: number; p50Ms: number | undefined; p95Ms: number | undefined };
  fallbacksPerMinute: number;
  /** Answers that broke after their first token within the window, by what happened (see ContinuationOutcome). */
  continuations: Record<string, number>;
  windowMs: number;
}

function percentile(sorted: readonly number[], fraction: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

/**
 * The summary the dashboard is shown: without prompt and completion text (`log_content: true`: those
 * go to the log only; kept here they would let 200 requests of 20 MB hold 4 GB), its error message
 * masked of credentials (maskSecrets, as answers and logs are).
 */
function toKeptSummary(summary: RequestSummary): RequestSummary {
  if (summary.content === undefined && summary.errorMessage === undefined) return summary;
  const kept = { ...summary };
  delete kept.content;
  if (summary.errorMessage !== undefined) kept.errorMessage = maskSecrets(summary.errorMessage);
  return kept;
}

/** Both lists as one, newest first (at most a few hundred entries, once per dashboard poll). */
function newestFirst(first: readonly RequestSummary[], second: readonly RequestSummary[]): RequestSummary[] {
  return [...first, ...second].sort((a, b) => b.endedAt - a.endedAt);
}

/** Keeps the recent past in memory (bounded): latest decisions, error counts, shares, fallbacks. */
export function createRecentActivity(options: RecentActivityOptions): RequestObserver & {
  snapshot(): ActivitySnapshot;
  /** A broken answer was continued, or not (by outcome). */
  continuation(event: { outcome: string }): void;
} {
  const keep = { routed: options.keepRequests ?? 200, rejected: options.keepRejected ?? 100 };
  const windowMs = options.windowMs ?? 300_000;
  /** Newest first. */
  const kept: Record<RequestSummary['outcome'], RequestSummary[]> = { routed: [], rejected: [] };
  /** Failed attempts with their time, oldest first; bounded by the window and a hard cap. */
  const failures: { attempt: AttemptSummary; at: number }[] = [];
  const fallbacks: number[] = [];
  /** Broken answers with their time and outcome, oldest first; bounded by the window and a hard cap. */
  const breaks: { outcome: string; at: number }[] = [];
  const prune = (now: number): void => {
    while ((breaks[0] !== undefined && now - breaks[0].at > windowMs) || breaks.length > 10_000)
      breaks.shift();
    while ((failures[0] !== undefined && now - failures[0].at > windowMs) || failures.length > 10_000)
      failures.shift();
    while (fallbacks[0] !== undefined && now - fallbacks[0] > 60_000) fallbacks.shift();
  };
  return {
    continuation(event) {
      const now = options.clock.now();
      breaks.push({ outcome: event.outcome, at: now });
      prune(now);
    },
    onAttempt(attempt) {
      const now = options.clock.now();
      if (attempt.called && attempt.outcome !== 'OK') failures.push({ attempt, at: now });
      if (attempt.called && attempt.fallback) fallbacks.push(now);
      prune(now);
    },
    onRequest(summary) {
      const list = kept[summary.outcome];
      list.unshift(toKeptSummary(summary));
      if (list.length > keep[summary.outcome]) list.pop();
    },
    snapshot() {
      const now = options.clock.now();
      prune(now);
      const inWindow = (request: RequestSummary): boolean => now - request.endedAt <= windowMs;
      const recent = kept.routed.filter(inWindow);
      const recentErrors: Record<string, Record<string, number>> = {};
      for (const { attempt } of failures) {
        const perDeployment = (recentErrors[attempt.deploymentId] ??= {});
        perDeployment[attempt.outcome] = (perDeployment[attempt.outcome] ?? 0) + 1;
      }
      const classified = recent.filter(
        (request) => request.complexity !== undefined && request.cause !== 'override',
      );
      const llmTimes = classified
        .map((request) => request.classifierMs.llm)
        .filter((value): value is number => value !== undefined)
        .sort((a, b) => a - b);
      return {
        requests: newestFirst(kept.routed, kept.rejected),
        recentErrors,
        byTier: countBy(recent, (request) => request.tier ?? 'none'),
        byCause: countBy(recent, (request) => request.cause ?? 'none'),
        byRejectedCode: countBy(kept.rejected.filter(inWindow), (request) => request.errorCode ?? 'none'),
        llm: {
          calls: classified.filter((request) => request.llmCalled).length,
          classified: classified.length,
          p50Ms: percentile(llmTimes, 0.5),
          p95Ms: percentile(llmTimes, 0.95),
        },
        fallbacksPerMinute: fallbacks.length,
        continuations: countBy(breaks, (entry) => entry.outcome),
        windowMs,
      };
    },
  };
}
