import type { BenchData, MemoryReadings, Unavailable } from './bench-data.js';
import type { Figure } from './figure.js';
import type { Frontier } from './measure-frontier.js';
import { ABUSE_KINDS } from './measure-abuse.js';
import { CORPORA, PROMPT_SIZES, type PromptSize } from './measure-local-costs.js';
import type { AddedStreamLatency, StreamCapacity } from './measure-streams.js';
import { toTargets, type Target } from './report-targets.js';
import type { RouteName } from './routes.js';
import { ratio, round3 } from './stats.js';

export interface Report {
  figures: Record<string, Figure>;
  targets: Target[];
}

function figure(
  label: string,
  unit: string,
  autotier: number | null,
  portkey?: number | null,
  references?: References,
): Figure {
  const base: Figure =
    portkey === undefined
      ? { label, unit, autotier }
      : { label, unit, autotier, portkey, ratio: ratio(autotier, portkey) };
  return references === undefined ? base : Object.assign(base, references);
}

type References = Pick<Figure, 'nginx' | 'nodeFloor'>;

/** The reference proxies' value of one measurement (absent keys: the proxy was not measured). */
function referencesOf<T>(
  routes: Partial<Record<RouteName, T>>,
  value: (route: T) => number | undefined,
): References {
  const references: References = {};
  if (routes.nginx !== undefined) references.nginx = value(routes.nginx) ?? null;
  if (routes['node-floor'] !== undefined) references.nodeFloor = value(routes['node-floor']) ?? null;
  return references;
}

/** One measurement of a run's routes: route `ours` beside Portkey and the reference proxies. */
function compared<T>(
  label: string,
  unit: string,
  routes: Partial<Record<RouteName, T>>,
  ours: RouteName,
  value: (route: T) => number | undefined,
): Figure {
  const of = (route: T | undefined): number | null => (route === undefined ? null : (value(route) ?? null));
  return figure(label, unit, of(routes[ours]), of(routes.portkey), referencesOf(routes, value));
}

function isUnavailable(value: object): value is Unavailable {
  return 'unavailable' in value;
}

export function toReport(data: BenchData): Report {
  const figures: Record<string, Figure> = {};
  addOverhead(figures, data);
  addFrontier(figures, data);
  addStreams(figures, data);
  addMemory(figures, data.memory.autotier, data.memory.portkey);
  addProductionStart(figures, data.memory.productionStart);
  addCosts(figures, data);
  addAbuse(figures, data);
  addTokenAccuracy(figures, data);
  return { figures, targets: toTargets(figures) };
}

function addOverhead(figures: Record<string, Figure>, data: BenchData): void {
  const { zero, realistic } = data.overhead;
  figures['c1.direct.p50_ms'] = figure('direct to simulator p50 (baseline)', 'ms', zero.direct.p50Ms);
  figures['c1.direct.p99_ms'] = figure('direct to simulator p99 (baseline)', 'ms', zero.direct.p99Ms);
  for (const [key, route, label] of [
    ['tier_simple', 'autotier', 'tier:SIMPLE'],
    ['auto', 'autotier-auto', 'auto (local classifier)'],
  ] as const) {
    figures[`c1.${key}.added_p50_ms`] = compared(
      `${label} added p50`,
      'ms',
      zero.routes,
      route,
      (run) => run.addedP50Ms,
    );
    figures[`c1.${key}.added_p99_ms`] = compared(
      `${label} added p99`,
      'ms',
      zero.routes,
      route,
      (run) => run.addedP99Ms,
    );
    figures[`c1.${key}.cpu_us_per_request`] = compared(
      `${label} router CPU per request`,
      'us',
      zero.routes,
      route,
      (run) => run.cpuUsPerRequest,
    );
  }
  figures['c1_realistic.direct.p50_ms'] = figure(
    'direct p50 (60 ms to first token)',
    'ms',
    realistic.direct.p50Ms,
  );
  figures['c1_realistic.tier.added_p50_ms'] = compared(
    'pinned deployment added p50',
    'ms',
    realistic.routes,
    'autotier',
    (run) => run.addedP50Ms,
  );
  figures['c1_realistic.tier.added_p99_ms'] = compared(
    'pinned deployment added p99',
    'ms',
    realistic.routes,
    'autotier',
    (run) => run.addedP99Ms,
  );
}

function frontierRate(frontier: Frontier | undefined, bound: string): number | null {
  return frontier === undefined ? null : (frontier.ratesByBound[bound] ?? null);
}

function addFrontier(figures: Record<string, Figure>, data: BenchData): void {
  const { autotier, portkey, autotierWorkers2 } = data.frontier;
  for (const bound of ['5ms', '20ms', '100ms']) {
    const open = autotier.unbounded.includes(bound) ? ' (not reached: higher)' : '';
    figures[`frontier.w1.p99_${bound}_rps`] = {
      ...figure(
        `1 worker, added p99 <= ${bound}`,
        'req/s',
        frontierRate(autotier, bound),
        frontierRate(portkey, bound),
      ),
      ...(open === '' ? {} : { note: open.trim() }),
    };
    figures[`frontier.w2.p99_${bound}_rps`] = isUnavailable(autotierWorkers2)
      ? {
          ...figure(`--workers 2, added p99 <= ${bound}`, 'req/s', null, frontierRate(portkey, bound)),
          note: autotierWorkers2.unavailable,
        }
      : figure(
          `--workers 2, added p99 <= ${bound}`,
          'req/s',
          frontierRate(autotierWorkers2, bound),
          frontierRate(portkey, bound),
        );
  }
}

function held(capacity: StreamCapacity | undefined): number | null {
  return capacity === undefined ? null : capacity.heldStreams;
}

function addStreams(figures: Record<string, Figure>, data: BenchData): void {
  const { routes } = data.streams.latency;
  const streamFigures = [
    ['added_ttft_p50_ms', 'added TTFT p50', 'ms', (run) => run.addedTtftP50Ms],
    ['added_ttft_p99_ms', 'added TTFT p99', 'ms', (run) => run.addedTtftP99Ms],
    ['added_gap_p50_ms', 'added inter-chunk gap p50', 'ms', (run) => run.addedGapP50Ms],
    ['added_gap_p99_ms', 'added inter-chunk gap p99', 'ms', (run) => run.addedGapP99Ms],
    ['cpu_us_per_chunk', 'router CPU per content chunk relayed', 'us', (run) => run.cpuUsPerChunk],
  ] as const satisfies readonly (readonly [
    string,
    string,
    string,
    (run: AddedStreamLatency) => number | undefined,
  ])[];
  for (const [key, label, unit, value] of streamFigures)
    figures[`stream.${key}`] = compared(label, unit, routes, 'autotier', value);
  const { capacity } = data.streams;
  figures['stream.direct.held_streams'] = figure(
    'direct: concurrent streams without a stall',
    'streams',
    held(capacity.direct),
  );
  figures['stream.held_streams'] = figure(
    'concurrent streams without a stall',
    'streams',
    held(capacity.autotier),
    held(capacity.portkey),
  );
  const top = Math.max(...data.streams.levels);
  const atTop = capacity.autotier?.levels.find((level) => level.streams === top);
  figures[`stream.stalled_at_${top}`] = {
    ...figure(
      `stalled or failed streams at ${top}`,
      'streams',
      atTop === undefined ? null : atTop.stalled + (top - atTop.completed),
    ),
    ...(atTop === undefined ? { note: 'not reached (a lower level failed)' } : {}),
  };
}

/** The production start's idle and peak RSS beside Portkey's, when the section ran. */
function addProductionStart(
  figures: Record<string, Figure>,
  start: BenchData['memory']['productionStart'],
): void {
  if (start === undefined || 'unavailable' in start) return;
  const seconds = Math.round(start.idleAfterMs / 1000);
  const theirs = (key: 'idleMiB' | 'peakMiB'): number | undefined =>
    start.portkey === undefined ? undefined : round3(start.portkey[key]);
  figures['memory.production_idle_mib'] = figure(
    `RSS of a production start (node dist/main.js, default table), idle after ${seconds} s`,
    'MiB',
    round3(start.autotier.idleMiB),
    theirs('idleMiB'),
  );
  figures['memory.production_peak_mib'] = figure(
    'RSS peak of a production start (VmHWM), up to the idle reading',
    'MiB',
    round3(start.autotier.peakMiB),
    theirs('peakMiB'),
  );
  const workers = start.workers2;
  if (workers === undefined) return;
  figures['memory.workers2_worker_idle_mib'] = figure(
    `--workers 2: RSS of the larger worker, idle after ${seconds} s`,
    'MiB',
    round3(Math.max(...workers.workers.map((worker) => worker.idleMiB))),
  );
  figures['memory.workers2_worker_peak_mib'] = figure(
    '--workers 2: RSS peak of the larger worker (VmHWM)',
    'MiB',
    round3(Math.max(...workers.workers.map((worker) => worker.peakMiB))),
  );
  figures['memory.workers2_primary_idle_mib'] = figure(
    `--workers 2: RSS of the primary (forks and watches), idle after ${seconds} s`,
    'MiB',
    round3(workers.primary.idleMiB),
  );
}

function addMemory(
  figures: Record<string, Figure>,
  ours: MemoryReadings,
  theirs: MemoryReadings | undefined,
): void {
  const pick = (
    readings: MemoryReadings | undefined,
    key: keyof MemoryReadings,
  ): number | null | undefined =>
    theirs === undefined ? undefined : readings === undefined ? null : round3(readings[key]);
  figures['memory.rss_start_mib'] = figure(
    'RSS at start',
    'MiB',
    round3(ours.startMiB),
    pick(theirs, 'startMiB'),
  );
  figures['memory.rss_idle_mib'] = figure(
    'RSS idle, before load',
    'MiB',
    round3(ours.idleMiB),
    pick(theirs, 'idleMiB'),
  );
  figures['memory.rss_peak_mib'] = figure(
    'RSS peak under load',
    'MiB',
    round3(ours.peakMiB),
    pick(theirs, 'peakMiB'),
  );
  figures['memory.rss_after_mib'] = figure(
    'RSS after load',
    'MiB',
    round3(ours.afterMiB),
    pick(theirs, 'afterMiB'),
  );
  const growth = (readings: MemoryReadings): number =>
    round3(((readings.afterMiB - readings.idleMiB) / readings.idleMiB) * 100);
  figures['memory.after_vs_idle_pct'] = {
    label: 'RSS after load vs idle',
    unit: '%',
    autotier: growth(ours),
    ...(theirs === undefined ? {} : { portkey: growth(theirs) }),
  };
}

function addCosts(figures: Record<string, Figure>, data: BenchData): void {
  for (const corpus of CORPORA) {
    const costs = data.costs[corpus];
    for (const size of Object.keys(PROMPT_SIZES) as PromptSize[]) {
      const local = costs.local?.[size];
      figures[`cost.${corpus}.classifier_local.${size}_us`] = figure(
        `local classifier, ${size} (${corpus})`,
        'us',
        local?.medianUs ?? null,
      );
      figures[`cost.${corpus}.classifier_heuristic.${size}_us`] = figure(
        `heuristic classifier, ${size} (${corpus})`,
        'us',
        costs.heuristic[size].medianUs,
      );
      figures[`cost.${corpus}.token_count.${size}_ms`] = figure(
        `token count, ${size} (${corpus})`,
        'ms',
        round3(costs.tokenCount[size].medianUs / 1000),
      );
    }
    figures[`cost.${corpus}.token_count.100k_max_stall_ms`] = figure(
      `longest event-loop stall counting 100k (${corpus})`,
      'ms',
      costs.maxStallWhileCounting100kMs,
    );
  }
}

/** `x1.23 baseline`: a figure against the same figure of normal traffic in the same run. */
function againstBaseline(value: number, baseline: number): string {
  const times = ratio(value, baseline);
  return times === null ? '' : `x${times.toFixed(2)} the normal-traffic figure`;
}

function addAbuse(figures: Record<string, Figure>, data: BenchData): void {
  const { abuse } = data;
  if (abuse === undefined) return;
  if (isUnavailable(abuse)) {
    figures['abuse.unavailable'] = {
      label: 'abuse section',
      unit: '',
      autotier: null,
      note: abuse.unavailable,
    };
    return;
  }
  const { baseline } = abuse;
  figures['abuse.baseline.request_p50_ms'] = figure(
    'normal auto request p50 (baseline)',
    'ms',
    baseline.request.p50Ms,
  );
  figures['abuse.baseline.health_p99_ms'] = figure(
    '/health p99 beside normal requests (baseline)',
    'ms',
    baseline.health.p99Ms,
  );
  let worstRequest = 0;
  let worstHealth = 0;
  for (const kind of ABUSE_KINDS) {
    const result = abuse.bodies[kind];
    const statuses = Object.entries(result.statuses)
      .map(([status, count]) => `${count}x ${status}`)
      .join(', ');
    figures[`abuse.${kind}.request_p50_ms`] = {
      ...figure(`1 MB ${kind}: request p50`, 'ms', result.request.p50Ms),
      note: `${againstBaseline(result.request.p50Ms, baseline.request.p50Ms)}; ${statuses}`,
    };
    figures[`abuse.${kind}.request_p90_ms`] = figure(`1 MB ${kind}: request p90`, 'ms', result.request.p90Ms);
    figures[`abuse.${kind}.health_p99_ms`] = {
      ...figure(`1 MB ${kind}: /health p99 beside it`, 'ms', result.health.p99Ms),
      note: againstBaseline(result.health.p99Ms, baseline.health.p99Ms),
    };
    worstRequest = Math.max(worstRequest, result.request.p90Ms);
    worstHealth = Math.max(worstHealth, result.health.p99Ms);
  }
  figures['abuse.worst.request_p90_ms'] = figure(
    'worst 1 MB body: router time per request, p90',
    'ms',
    worstRequest,
  );
  figures['abuse.worst.health_p99_ms'] = figure('worst 1 MB body: /health p99 beside it', 'ms', worstHealth);
}

function addTokenAccuracy(figures: Record<string, Figure>, data: BenchData): void {
  for (const [tokenizer, accuracy] of Object.entries(data.tokenAccuracy ?? {})) {
    figures[`tokens.${tokenizer}.max_error_pct`] = {
      ...figure(
        `${tokenizer}: largest error on an eval prompt vs the exact encoder`,
        '%',
        accuracy.maxErrorPct,
      ),
      note: `${accuracy.texts} texts; total ${accuracy.totalErrorPct}%`,
    };
  }
}
