import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadRunner, StreamResult } from './load.js';
import type { NamedTarget, RouteName } from './routes.js';
import { round3 } from './stats.js';

/** A gap between two content chunks longer than this is a stall, in milliseconds (12.5x the 20 ms pacing). */
export const STALL_THRESHOLD_MS = 250;

export interface AddedStreamLatency {
  addedTtftP50Ms: number;
  addedTtftP99Ms: number;
  addedGapP50Ms: number;
  addedGapP99Ms: number;
  result: StreamResult;
}

export interface StreamLatencyResult {
  direct: StreamResult;
  routes: Partial<Record<RouteName, AddedStreamLatency>>;
}

/**
 * Time to first content chunk and inter-chunk gaps on paced streams, with the starts spread out
 * (one every `startIntervalMs`) so the figure is the router's per-stream cost rather than the
 * queueing of a burst. Targets run one after another; added figures subtract the direct run.
 */
export async function measureStreamLatency(options: {
  runner: LoadRunner;
  targets: readonly NamedTarget[];
  streams: number;
  startIntervalMs: number;
}): Promise<StreamLatencyResult> {
  const results = new Map<RouteName, StreamResult>();
  for (const target of options.targets) {
    const result = await options.runner.stream({
      ...target,
      streams: options.streams,
      startIntervalMs: options.startIntervalMs,
      stallThresholdMs: STALL_THRESHOLD_MS,
    });
    results.set(target.name, result);
    await sleep(300);
  }
  const direct = results.get('direct');
  if (direct === undefined) throw new Error('stream latency needs a direct target');
  const routes: Partial<Record<RouteName, AddedStreamLatency>> = {};
  for (const [name, result] of results) {
    if (name === 'direct') continue;
    routes[name] = {
      addedTtftP50Ms: round3(result.ttfcP50Ms - direct.ttfcP50Ms),
      addedTtftP99Ms: round3(result.ttfcP99Ms - direct.ttfcP99Ms),
      addedGapP50Ms: round3(result.gapP50Ms - direct.gapP50Ms),
      addedGapP99Ms: round3(result.gapP99Ms - direct.gapP99Ms),
      result,
    };
  }
  return { direct, routes };
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
