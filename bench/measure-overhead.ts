import type { LatencyResult, LoadRunner, Target } from './load.js';
import type { NamedTarget, RouteName } from './routes.js';
import { median, rotate, round3 } from './stats.js';

/** Added latency of one route at concurrency 1: medians over rounds of (route - direct) in the same round. */
export interface AddedLatency {
  addedP50Ms: number;
  addedP99Ms: number;
  /** Median of the route's own p50 / p99 over rounds. */
  p50Ms: number;
  p99Ms: number;
  /** Requests that failed or answered non-2xx, over all rounds. */
  failures: number;
  /**
   * CPU time of the router process per request (user + system, warm-up included), median over
   * rounds, in microseconds: far less sensitive to a busy machine than the latency percentiles.
   */
  cpuUsPerRequest: number | undefined;
}

export interface OverheadResult {
  direct: { p50Ms: number; p99Ms: number; failures: number };
  routes: Partial<Record<RouteName, AddedLatency>>;
  rounds: number;
  requests: number;
  /** Fewest measured requests of one run (below `requests` when the time cap cut a run short). */
  fewestMeasured: number;
}

/**
 * Concurrency-1 latency of every target, interleaved: each round runs all targets once (the order
 * rotates between rounds), so a noisy neighbour on the shared machine hits all of them alike. Each
 * route's added latency is its percentile minus the direct percentile of the same round; the
 * reported figure is the median of those differences.
 */
export async function measureOverhead(options: {
  runner: LoadRunner;
  targets: readonly NamedTarget[];
  requests: number;
  warmup: number;
  rounds: number;
  /** Cap on each measured run, in seconds (fewer requests on a busy machine). */
  maxDurationSeconds: number;
  /** CPU ms used so far by the process serving a route (undefined: not measured). */
  cpuMsOf?: (route: RouteName) => number | undefined;
}): Promise<OverheadResult> {
  const results = new Map<RouteName, LatencyResult[]>();
  const cpu = new Map<RouteName, number[]>();
  for (let round = 0; round < options.rounds; round += 1) {
    const order = rotate(options.targets, round);
    for (const target of order) {
      const { result, cpuUsPerRequest } = await measureRun({
        ...options,
        target,
        cpuMs: () => options.cpuMsOf?.(target.name),
      });
      results.set(target.name, [...(results.get(target.name) ?? []), result]);
      if (cpuUsPerRequest !== undefined)
        cpu.set(target.name, [...(cpu.get(target.name) ?? []), cpuUsPerRequest]);
    }
  }
  const direct = results.get('direct') ?? [];
  const routes: Partial<Record<RouteName, AddedLatency>> = {};
  for (const [name, runs] of results) {
    if (name === 'direct') continue;
    routes[name] = {
      addedP50Ms: round3(median(runs.map((run, index) => run.p50Ms - (direct[index]?.p50Ms ?? 0)))),
      addedP99Ms: round3(median(runs.map((run, index) => run.p99Ms - (direct[index]?.p99Ms ?? 0)))),
      p50Ms: round3(median(runs.map((run) => run.p50Ms))),
      p99Ms: round3(median(runs.map((run) => run.p99Ms))),
      failures: failures(runs),
      cpuUsPerRequest: cpu.has(name) ? Math.round(median(cpu.get(name) ?? [])) : undefined,
    };
  }
  return {
    direct: {
      p50Ms: round3(median(direct.map((run) => run.p50Ms))),
      p99Ms: round3(median(direct.map((run) => run.p99Ms))),
      failures: failures(direct),
    },
    routes,
    rounds: options.rounds,
    requests: options.requests,
    fewestMeasured: Math.min(...[...results.values()].flat().map((run) => run.ok)),
  };
}

/** One concurrency-1 run of a target and its server's CPU time per served request. */
export interface MeasuredRun {
  result: LatencyResult;
  /** CPU microseconds per request (warm-up included); undefined when not measured. */
  cpuUsPerRequest: number | undefined;
}

/**
 * One concurrency-1 run: `requests` measured after `warmup`, with the serving process's CPU time
 * (`cpuMs`, ms used so far) read before and after, divided over every request it served.
 */
export async function measureRun(options: {
  runner: LoadRunner;
  target: Target;
  requests: number;
  warmup: number;
  maxDurationSeconds: number;
  cpuMs?: () => number | undefined;
}): Promise<MeasuredRun> {
  const before = options.cpuMs?.();
  const result = await options.runner.latency({
    ...options.target,
    requests: options.requests,
    warmup: options.warmup,
    maxDurationSeconds: options.maxDurationSeconds,
  });
  const after = options.cpuMs?.();
  const served = result.ok + result.errors + result.non2xx + options.warmup;
  const measured = before !== undefined && after !== undefined && served > 0;
  return { result, cpuUsPerRequest: measured ? ((after - before) * 1000) / served : undefined };
}

function failures(runs: readonly LatencyResult[]): number {
  return runs.reduce((sum, run) => sum + run.errors + run.non2xx, 0);
}
