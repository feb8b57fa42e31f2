import type { Clock } from '../shared/clock.js';
import { createLatencySketch, type LatencySketch } from './latency-sketch.js';
import type { AttemptSummary, RequestObserver, RequestSummary } from './request-summary.js';
import {
  REJECTION_KINDS,
  toRejectionKind,
  toRequestClass,
  type RejectionKind,
  type RequestClass,
} from './to-request-class.js';

export interface ActivityHistoryOptions {
  clock: Clock;
  /** Width of one bucket, ms. @default 60000 (1 minute) */
  bucketMs?: number;
  /** Buckets kept, the current one included. @default 60 (with 1-minute buckets: the last hour) */
  buckets?: number;
}

/**
 * What the history reads from a finished request. `endpoint` is a label (`chat`, `completions`, or
 * any other endpoint that reports its requests): the history keeps a request count per label.
 */
export type HistoryRequest = Pick<
  RequestSummary,
  | 'outcome'
  | 'status'
  | 'errorCode'
  | 'tier'
  | 'deployment'
  | 'fallbacks'
  | 'ttftMs'
  | 'upstreamTtftMs'
  | 'durationMs'
> & { endpoint: string };

/** What the history reads from an upstream attempt. */
export type HistoryAttempt = Pick<AttemptSummary, 'deploymentId' | 'called' | 'outcome'>;

/** Percentiles per bucket, ms (null: no value in that bucket). */
export interface PercentileSeries {
  p50: (number | null)[];
  p95: (number | null)[];
}

export interface DeploymentHistory {
  /** Upstream calls per bucket, and the calls among them that failed (client disconnects excluded). */
  attempts: number[];
  failures: number[];
  /** The deployment's own time to first token (from its call, not from the request's arrival). */
  ttftMs: PercentileSeries;
  /** Over the whole window. */
  total: { attempts: number; failures: number; ttftP50Ms: number | null; ttftP95Ms: number | null };
}

/**
 * The last `buckets` buckets, oldest first, as columns: index i of every series is the bucket that
 * starts at `start + i * bucketMs` (the last one is still filling). Kept in this process's memory.
 */
export interface HistorySnapshot {
  /** The history is this process's own (each worker of `--workers N` keeps its own). */
  scope: 'process';
  bucketMs: number;
  buckets: number;
  /** Epoch ms at which the oldest bucket starts. */
  start: number;
  /** Epoch ms the snapshot was taken. */
  now: number;
  /** Requests per bucket by how they ended (see RequestClass). */
  requests: Record<RequestClass, number[]>;
  /** Refused requests per bucket, by kind. */
  rejected: Record<RejectionKind, number[]>;
  /** Routed requests per bucket by the tier they were sent to. */
  tiers: Record<string, number[]>;
  /** Requests (routed and refused) per bucket by endpoint label. */
  endpoints: Record<string, number[]>;
  /** Upstream calls that were fallbacks, per bucket. */
  fallbacks: number[];
  /** Whole-request time of routed requests (ok and error), and the time to their first token. */
  latencyMs: PercentileSeries;
  ttftMs: PercentileSeries;
  deployments: Record<string, DeploymentHistory>;
  totals: {
    requests: number;
    errors: number;
    rejected: number;
    latencyP50Ms: number | null;
    latencyP95Ms: number | null;
  };
}

/** Distinct labels kept per bucket and kind (tiers, endpoints); more go to OTHER. */
const MAX_LABELS = 16;
/** Distinct deployments kept per bucket; more go to OTHER. The table's ids, never client text. */
const MAX_DEPLOYMENTS = 64;
export const OTHER = '(other)';

interface DeploymentBucket {
  attempts: number;
  failures: number;
  ttft: LatencySketch;
}

interface Bucket {
  /** floor(time / bucketMs) of the bucket's start. */
  index: number;
  requests: Record<RequestClass, number>;
  rejected: Record<RejectionKind, number>;
  tiers: Map<string, number>;
  endpoints: Map<string, number>;
  fallbacks: number;
  latency: LatencySketch;
  ttft: LatencySketch;
  deployments: Map<string, DeploymentBucket>;
}

function createBucket(index: number): Bucket {
  return {
    index,
    requests: { ok: 0, error: 0, rejected: 0, cancelled: 0 },
    rejected: { invalid: 0, auth: 0, limit: 0, shutting_down: 0, other: 0 },
    tiers: new Map(),
    endpoints: new Map(),
    fallbacks: 0,
    latency: createLatencySketch(),
    ttft: createLatencySketch(),
    deployments: new Map(),
  };
}

/** A key of a capped map: the label itself while there is room (or it is there), else OTHER. */
function toCappedKey(map: ReadonlyMap<string, unknown>, label: string, cap: number): string {
  return map.has(label) || map.size < cap - 1 ? label : OTHER;
}

function increment(map: Map<string, number>, label: string): void {
  const key = toCappedKey(map, label, MAX_LABELS);
  map.set(key, (map.get(key) ?? 0) + 1);
}

function deploymentOf(bucket: Bucket, id: string): DeploymentBucket {
  const key = toCappedKey(bucket.deployments, id, MAX_DEPLOYMENTS);
  let entry = bucket.deployments.get(key);
  if (entry === undefined) {
    entry = { attempts: 0, failures: 0, ttft: createLatencySketch() };
    bucket.deployments.set(key, entry);
  }
  return entry;
}

/** A percentile as sent to the page: 0.1 ms precision, null for none. */
function toShownMs(value: number | undefined): number | null {
  return value === undefined ? null : Math.round(value * 10) / 10;
}

/** The history: a ring of `buckets` buckets reused in turn, so memory is bounded by bucket count. */
export interface ActivityHistory extends RequestObserver {
  /** Counts a finished request in the current bucket (onRequest does this for a RequestSummary). */
  record(request: HistoryRequest): void;
  /** Counts an upstream call in the current bucket (onAttempt does this). */
  recordAttempt(attempt: HistoryAttempt & { fallback?: boolean }): void;
  snapshot(): HistorySnapshot;
  /** Buckets allocated right now (at most `buckets`). */
  allocatedBuckets(): number;
}

/**
 * Per-minute history of the last hour (by default) from the injected clock: a fixed ring of buckets,
 * each with counts and fixed-size latency sketches; nothing in it grows with traffic or with clients.
 */
export function createActivityHistory(options: ActivityHistoryOptions): ActivityHistory {
  const bucketMs = options.bucketMs ?? 60_000;
  const size = options.buckets ?? 60;
  const ring: (Bucket | undefined)[] = new Array<Bucket | undefined>(size).fill(undefined);
  const currentIndex = (): number => Math.floor(options.clock.now() / bucketMs);
  /** The current bucket; a slot left from an older lap is started afresh. */
  const current = (): Bucket => {
    const index = currentIndex();
    const slot = ((index % size) + size) % size;
    const kept = ring[slot];
    if (kept !== undefined && kept.index === index) return kept;
    const fresh = createBucket(index);
    ring[slot] = fresh;
    return fresh;
  };
  /** The bucket of `index` if it is still in the ring. */
  const bucketAt = (index: number): Bucket | undefined => {
    const kept = ring[((index % size) + size) % size];
    return kept?.index === index ? kept : undefined;
  };

  /**
   * The window's finished buckets merged (request latency, each deployment's TTFT): they no longer
   * change, so they are merged once per bucket rollover, and each snapshot adds the current bucket.
   */
  let finished: WholeWindow & { last: number } = {
    last: NaN,
    latency: createLatencySketch(),
    ttft: new Map(),
  };
  const wholeWindow = (buckets: readonly (Bucket | undefined)[], last: number): WholeWindow => {
    if (finished.last !== last) finished = { last, ...mergeBuckets(buckets.slice(0, -1)) };
    const whole = mergeBuckets([buckets[buckets.length - 1]]);
    whole.latency.merge(finished.latency);
    for (const [id, sketch] of finished.ttft) {
      const merged = whole.ttft.get(id) ?? createLatencySketch();
      merged.merge(sketch);
      whole.ttft.set(id, merged);
    }
    return whole;
  };

  const history: ActivityHistory = {
    record(request) {
      const bucket = current();
      const kind = toRequestClass(request);
      bucket.requests[kind] += 1;
      increment(bucket.endpoints, request.endpoint);
      if (kind === 'rejected') bucket.rejected[toRejectionKind(request)] += 1;
      if (request.outcome !== 'routed') return;
      if (request.tier !== undefined) increment(bucket.tiers, request.tier);
      if (kind === 'ok' || kind === 'error') bucket.latency.add(request.durationMs);
      if (kind === 'ok' && request.ttftMs !== undefined) bucket.ttft.add(request.ttftMs);
      if (kind === 'ok' && request.deployment !== undefined && request.upstreamTtftMs !== undefined)
        deploymentOf(bucket, request.deployment).ttft.add(request.upstreamTtftMs);
    },
    recordAttempt(attempt) {
      if (!attempt.called) return;
      const bucket = current();
      const entry = deploymentOf(bucket, attempt.deploymentId);
      entry.attempts += 1;
      if (attempt.outcome !== 'OK' && attempt.outcome !== 'CLIENT_CLOSED') entry.failures += 1;
      if (attempt.fallback === true) bucket.fallbacks += 1;
    },
    onRequest: (summary) => history.record(summary),
    onAttempt: (attempt) => history.recordAttempt(attempt),
    snapshot() {
      const last = currentIndex();
      const buckets = Array.from({ length: size }, (_, offset) => bucketAt(last - size + 1 + offset));
      return toSnapshot({
        buckets,
        last,
        bucketMs,
        now: options.clock.now(),
        whole: wholeWindow(buckets, last),
      });
    },
    allocatedBuckets: () => ring.filter((bucket) => bucket !== undefined).length,
  };
  return history;
}

/** Sketches over the whole window. */
interface WholeWindow {
  latency: LatencySketch;
  /** Each deployment's own time to first token. */
  ttft: Map<string, LatencySketch>;
}

function mergeBuckets(buckets: readonly (Bucket | undefined)[]): WholeWindow {
  const whole: WholeWindow = { latency: createLatencySketch(), ttft: new Map() };
  for (const bucket of buckets) {
    if (bucket === undefined) continue;
    whole.latency.merge(bucket.latency);
    for (const [id, entry] of bucket.deployments) {
      const merged = whole.ttft.get(id) ?? createLatencySketch();
      merged.merge(entry.ttft);
      whole.ttft.set(id, merged);
    }
  }
  return whole;
}

interface SnapshotInput {
  /** The window's buckets, oldest first; the last is the current one. */
  buckets: readonly (Bucket | undefined)[];
  last: number;
  bucketMs: number;
  now: number;
  whole: WholeWindow;
}

/** A series of `size` zeros with `value(bucket)` where a bucket has data. */
function column<T>(buckets: readonly (Bucket | undefined)[], value: (bucket: Bucket) => T, empty: T): T[] {
  return buckets.map((bucket) => (bucket === undefined ? empty : value(bucket)));
}

function labelColumns(
  buckets: readonly (Bucket | undefined)[],
  pick: (bucket: Bucket) => ReadonlyMap<string, number>,
): Record<string, number[]> {
  const labels = new Set<string>();
  for (const bucket of buckets)
    if (bucket !== undefined) for (const label of pick(bucket).keys()) labels.add(label);
  const columns: Record<string, number[]> = {};
  for (const label of [...labels].sort())
    columns[label] = column(buckets, (bucket) => pick(bucket).get(label) ?? 0, 0);
  return columns;
}

/**
 * p50 and p95 of each sketch, kept while its count is unchanged: a finished bucket's sketches never
 * change again, so a snapshot reads their percentiles once, not on every dashboard poll.
 */
const shownPercentiles = new WeakMap<
  LatencySketch,
  { count: number; values: [number | null, number | null] }
>();

function p50p95(sketch: LatencySketch | undefined): [number | null, number | null] {
  if (sketch === undefined) return [null, null];
  const kept = shownPercentiles.get(sketch);
  if (kept?.count === sketch.count()) return kept.values;
  const [p50, p95] = sketch.quantiles([0.5, 0.95]);
  const values: [number | null, number | null] = [toShownMs(p50), toShownMs(p95)];
  shownPercentiles.set(sketch, { count: sketch.count(), values });
  return values;
}

function percentiles(
  buckets: readonly (Bucket | undefined)[],
  pick: (bucket: Bucket) => LatencySketch | undefined,
): PercentileSeries {
  const values = buckets.map((bucket) => (bucket === undefined ? undefined : p50p95(pick(bucket))));
  return {
    p50: values.map((pair) => pair?.[0] ?? null),
    p95: values.map((pair) => pair?.[1] ?? null),
  };
}

function deploymentHistory(
  buckets: readonly (Bucket | undefined)[],
  id: string,
  merged: LatencySketch | undefined,
): DeploymentHistory {
  const of = (bucket: Bucket): DeploymentBucket | undefined => bucket.deployments.get(id);
  const attempts = column(buckets, (bucket) => of(bucket)?.attempts ?? 0, 0);
  const failures = column(buckets, (bucket) => of(bucket)?.failures ?? 0, 0);
  const [ttftP50Ms, ttftP95Ms] = p50p95(merged);
  const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);
  return {
    attempts,
    failures,
    ttftMs: percentiles(buckets, (bucket) => of(bucket)?.ttft),
    total: {
      attempts: sum(attempts),
      failures: sum(failures),
      ttftP50Ms,
      ttftP95Ms,
    },
  };
}

function toSnapshot(input: SnapshotInput): HistorySnapshot {
  const { buckets } = input;
  const first = input.last - buckets.length + 1;
  const count = (pick: (bucket: Bucket) => number): number[] => column(buckets, pick, 0);
  const requests = {
    ok: count((bucket) => bucket.requests.ok),
    error: count((bucket) => bucket.requests.error),
    rejected: count((bucket) => bucket.requests.rejected),
    cancelled: count((bucket) => bucket.requests.cancelled),
  };
  const rejected = Object.fromEntries(
    REJECTION_KINDS.map((kind) => [kind, count((bucket) => bucket.rejected[kind])]),
  ) as Record<RejectionKind, number[]>;
  const deploymentIds = new Set<string>();
  for (const bucket of buckets)
    if (bucket !== undefined) for (const id of bucket.deployments.keys()) deploymentIds.add(id);
  const [latencyP50Ms, latencyP95Ms] = p50p95(input.whole.latency);
  const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);
  return {
    scope: 'process',
    bucketMs: input.bucketMs,
    buckets: buckets.length,
    start: first * input.bucketMs,
    now: input.now,
    requests,
    rejected,
    tiers: labelColumns(buckets, (bucket) => bucket.tiers),
    endpoints: labelColumns(buckets, (bucket) => bucket.endpoints),
    fallbacks: count((bucket) => bucket.fallbacks),
    latencyMs: percentiles(buckets, (bucket) => bucket.latency),
    ttftMs: percentiles(buckets, (bucket) => bucket.ttft),
    deployments: Object.fromEntries(
      [...deploymentIds].sort().map((id) => [id, deploymentHistory(buckets, id, input.whole.ttft.get(id))]),
    ),
    totals: {
      requests: sum(requests.ok) + sum(requests.error) + sum(requests.rejected) + sum(requests.cancelled),
      errors: sum(requests.error),
      rejected: sum(requests.rejected),
      latencyP50Ms,
      latencyP95Ms,
    },
  };
}
