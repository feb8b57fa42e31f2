import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadRunner, StreamResult } from './load.js';
import { percentile } from './percentiles.js';
import type { NamedTarget, RouteName } from './routes.js';
import { rotate, round3 } from './stats.js';

/** A gap between two content chunks longer than this is a stall, in milliseconds (12.5x the 20 ms pacing). */
export const STALL_THRESHOLD_MS = 250;

/** Percentiles of one route's streams, pooled over every round. */
export interface PooledStreamLatency {
  streams: number;
  completed: number;
  failed: number;
  ttftP50Ms: number;
  ttftP99Ms: number;
  gapP50Ms: number;
  gapP99Ms: number;
  gapMaxMs: number;
}

export interface AddedStreamLatency {
  /**
   * CPU time of the route's process over its runs divided by the content chunks it delivered, in
   * microseconds (the request handling of each stream included, spread over its 64 chunks).
   */
  cpuUsPerChunk: number | undefined;
  addedTtftP50Ms: number;
  addedTtftP99Ms: number;
  addedGapP50Ms: number;
  addedGapP99Ms: number;
  result: PooledStreamLatency;
}

export interface StreamLatencyResult {
  direct: PooledStreamLatency;
  routes: Partial<Record<RouteName, AddedStreamLatency>>;
  rounds: number;
}

/**
 * Time to first content chunk and inter-chunk gaps on paced streams, with the starts spread out
 * (one every `startIntervalMs`) so the figure is the router's per-stream cost rather than the
 * queueing of a burst. Every round runs each target once (the order rotates between rounds, so a
 * noisy neighbour hits all of them alike); the percentiles pool every round's samples (a p99 of
 * one 80-stream run is its largest value), and added figures subtract the direct route's pooled
 * percentiles.
 */
export async function measureStreamLatency(options: {
  runner: LoadRunner;
  targets: readonly NamedTarget[];
  streams: number;
  startIntervalMs: number;
  rounds: number;
  /** CPU ms used so far by the process serving a route (undefined: not measured). */
  cpuMsOf?: (route: RouteName) => number | undefined;
}): Promise<StreamLatencyResult> {
  const results = new Map<RouteName, StreamResult[]>();
  const cpuMs = new Map<RouteName, number>();
  for (let round = 0; round < options.rounds; round += 1) {
    for (const target of rotate(options.targets, round)) {
      const before = options.cpuMsOf?.(target.name);
      const result = await options.runner.stream({
        ...target,
        streams: options.streams,
        startIntervalMs: options.startIntervalMs,
        stallThresholdMs: STALL_THRESHOLD_MS,
        samples: true,
      });
      const after = options.cpuMsOf?.(target.name);
      if (before !== undefined && after !== undefined)
        cpuMs.set(target.name, (cpuMs.get(target.name) ?? 0) + after - before);
      results.set(target.name, [...(results.get(target.name) ?? []), result]);
      await sleep(300);
    }
  }
  const chunksOf = (name: RouteName): number =>
    (results.get(name) ?? []).reduce(
      (sum, run) => sum + (run.samples?.gapsMs.length ?? 0) + run.completed,
      0,
    );
  const pooled = new Map([...results].map(([name, runs]) => [name, pool(runs)]));
  const direct = pooled.get('direct');
  if (direct === undefined) throw new Error('stream latency needs a direct target');
  const routes: Partial<Record<RouteName, AddedStreamLatency>> = {};
  for (const [name, result] of pooled) {
    if (name === 'direct') continue;
    routes[name] = {
      addedTtftP50Ms: round3(result.ttftP50Ms - direct.ttftP50Ms),
      addedTtftP99Ms: round3(result.ttftP99Ms - direct.ttftP99Ms),
      addedGapP50Ms: round3(result.gapP50Ms - direct.gapP50Ms),
      addedGapP99Ms: round3(result.gapP99Ms - direct.gapP99Ms),
      cpuUsPerChunk: cpuMs.has(name)
        ? Math.round(((cpuMs.get(name) ?? 0) * 1000) / Math.max(1, chunksOf(name)))
        : undefined,
      result,
    };
  }
  return { direct, routes, rounds: options.rounds };
}

/** Pools the samples of several runs of one route into one set of percentiles. */
export function pool(runs: readonly StreamResult[]): PooledStreamLatency {
  const ttft = runs.flatMap((run) => run.samples?.ttfcMs ?? []).sort((left, right) => left - right);
  const gaps = runs.flatMap((run) => run.samples?.gapsMs ?? []).sort((left, right) => left - right);
  const sum = (pick: (run: StreamResult) => number): number =>
    runs.reduce((total, run) => total + pick(run), 0);
  return {
    streams: sum((run) => run.streams),
    completed: sum((run) => run.completed),
    failed: sum((run) => run.errors + run.non2xx),
    ttftP50Ms: round3(percentile(ttft, 50)),
    ttftP99Ms: round3(percentile(ttft, 99)),
    gapP50Ms: round3(percentile(gaps, 50)),
    gapP99Ms: round3(percentile(gaps, 99)),
    gapMaxMs: round3(gaps.at(-1) ?? 0),
  };
}

export interface StreamCapacity {
  /** Largest level at which every stream completed with no stall; 0 when the first level failed. */
  heldStreams: number;
  levels: {
    streams: number;
    completed: number;
    stalled: number;
    errors: number;
    gapMaxMs: number;
    ttftP99Ms: number;
  }[];
}

/**
 * Concurrent-stream ladder: at each level all streams start together. Levels run in order, every
 * target at a level before the next level; a target stops climbing at its first level with an
 * incomplete or stalled stream (after a second try when `retry` is set).
 */
export async function measureStreamCapacity(options: {
  runner: LoadRunner;
  targets: readonly NamedTarget[];
  levels: readonly number[];
  /** Run a failed level once more and keep the better run. */
  retry: boolean;
}): Promise<Partial<Record<RouteName, StreamCapacity>>> {
  const capacity: Partial<Record<RouteName, StreamCapacity>> = {};
  const failed = new Set<RouteName>();
  for (const streams of options.levels) {
    for (const target of options.targets) {
      if (failed.has(target.name)) continue;
      const run = () =>
        options.runner.stream({
          ...target,
          streams,
          stallThresholdMs: STALL_THRESHOLD_MS,
          timeoutMs: 60_000,
        });
      let result = await run();
      // A failed level is run once more and the better run kept: one noisy neighbour must not end the ladder.
      if (options.retry && !holds(result)) {
        await sleep(500);
        const again = await run();
        if (badStreams(again) < badStreams(result)) result = again;
      }
      const entry = (capacity[target.name] ??= { heldStreams: 0, levels: [] });
      entry.levels.push({
        streams,
        completed: result.completed,
        stalled: result.stalledStreams,
        errors: result.errors + result.non2xx,
        gapMaxMs: result.gapMaxMs,
        ttftP99Ms: result.ttfcP99Ms,
      });
      if (holds(result)) entry.heldStreams = streams;
      else failed.add(target.name);
      await sleep(500);
    }
  }
  return capacity;
}

function badStreams(result: StreamResult): number {
  return result.streams - result.completed + result.stalledStreams;
}

function holds(result: StreamResult): boolean {
  return badStreams(result) === 0;
}
