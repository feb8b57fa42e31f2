import { parseArgs } from 'node:util';
import { median, round3 } from './stats.js';

/**
 * The pure parts of `npm run bench:compare` (bench/compare-builds.ts): its flags, the order of the
 * two builds in each round, and the medians and changes computed from the per-round runs.
 */
export type BuildName = 'base' | 'new';

export interface CompareOptions {
  /** Checkout whose dist/main.js is the reference. */
  base: string;
  /** Checkout whose dist/main.js is compared against it. */
  next: string;
  rounds: number;
  /** Measured requests per run (concurrency 1). */
  requests: number;
  /** Unmeasured requests before each run (their CPU time is counted). */
  warmup: number;
  /** `model` values sent to both builds, e.g. `tier:SIMPLE`, `auto`. */
  models: string[];
  /** Pause between two runs, in milliseconds. */
  pauseMs: number;
  /** Cap on one run, in seconds (a run stops early on a very slow machine). */
  maxDurationSeconds: number;
  /** JSON result file; undefined: bench/results/compare-<base commit>-<new commit>.json. */
  out: string | undefined;
}

const USAGE =
  'usage: npm run bench:compare -- --base <dir> --new <dir> [--rounds 8] [--requests 1500] ' +
  '[--warmup 200] [--models tier:SIMPLE,auto] [--pause-ms 200] [--max-seconds 120] [--out <file>]';

export function parseCompareArgs(argv: readonly string[]): CompareOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      base: { type: 'string' },
      new: { type: 'string' },
      rounds: { type: 'string', default: '8' },
      requests: { type: 'string', default: '1500' },
      warmup: { type: 'string', default: '200' },
      models: { type: 'string', default: 'tier:SIMPLE,auto' },
      'pause-ms': { type: 'string', default: '200' },
      'max-seconds': { type: 'string', default: '120' },
      out: { type: 'string' },
    },
  });
  if (values.base === undefined || values.new === undefined) throw new Error(USAGE);
  const models = values.models
    .split(',')
    .map((model) => model.trim())
    .filter((model) => model.length > 0);
  if (models.length === 0) throw new Error(`--models names no model\n${USAGE}`);
  return {
    base: values.base,
    next: values.new,
    rounds: toCount('--rounds', values.rounds, 1),
    requests: toCount('--requests', values.requests, 1),
    warmup: toCount('--warmup', values.warmup, 0),
    models,
    pauseMs: toCount('--pause-ms', values['pause-ms'], 0),
    maxDurationSeconds: toCount('--max-seconds', values['max-seconds'], 1),
    out: values.out,
  };
}

function toCount(flag: string, text: string, minimum: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < minimum)
    throw new Error(`${flag} must be an integer of at least ${minimum}, not ${JSON.stringify(text)}`);
  return value;
}

/** Base first in even rounds, new first in odd ones, so neither always runs on the warmer machine. */
export function buildOrder(round: number): readonly [BuildName, BuildName] {
  return round % 2 === 0 ? ['base', 'new'] : ['new', 'base'];
}

/** One concurrency-1 run of one build (or of the simulator directly) for one model in one round. */
export interface RunRecord {
  round: number;
  model: string;
  target: BuildName | 'direct';
  p50Ms: number;
  p99Ms: number;
  /** Undefined for the direct runs (no router process). */
  cpuUsPerRequest: number | undefined;
  /** Requests measured (2xx). */
  ok: number;
  /** Requests that failed or answered non-2xx. */
  failures: number;
}

export const METRICS = ['cpuUsPerRequest', 'p50Ms', 'p99Ms', 'addedP50Ms', 'addedP99Ms'] as const;
export type Metric = (typeof METRICS)[number];

export interface MetricComparison {
  /** Median over rounds. */
  base: number;
  next: number;
  /** (new - base) / base of the medians, in percent to 0.1; null when base is not positive. */
  changePercent: number | null;
  /** Median over rounds of each round's own (new - base) / base, in percent to 0.1. */
  pairedChangePercent: number | null;
  /** Rounds in which new measured higher than base, of `rounds` (about half when nothing changed). */
  newHigher: number;
  rounds: number;
}

export interface ModelComparison {
  model: string;
  metrics: Record<Metric, MetricComparison>;
  /** Median direct (simulator without a router) p50 and p99 of the same rounds, ms. */
  direct: { p50Ms: number; p99Ms: number };
  failures: Record<BuildName | 'direct', number>;
  /** Fewest measured requests of one run of this model. */
  fewestMeasured: number;
}

/** (next - base) / base in percent, to 0.1; null when either is not finite or base is not positive. */
export function percentChange(base: number, next: number): number | null {
  if (!Number.isFinite(base) || !Number.isFinite(next) || base <= 0) return null;
  return Math.round(((next - base) / base) * 1000) / 10;
}

/** Per model: each metric's median over rounds for both builds and the change of new against base. */
export function compareRuns(records: readonly RunRecord[], models: readonly string[]): ModelComparison[] {
  return models.map((model) => {
    const ofModel = records.filter((record) => record.model === model);
    const rounds = [...new Set(ofModel.map((record) => record.round))].sort((a, b) => a - b);
    const find = (round: number, target: RunRecord['target']): RunRecord | undefined =>
      ofModel.find((record) => record.round === round && record.target === target);
    const valuesOf = (target: BuildName, metric: Metric): (number | undefined)[] =>
      rounds.map((round) => metricOf(find(round, target), find(round, 'direct'), metric));
    const metrics = Object.fromEntries(
      METRICS.map((metric) => [metric, compareMetric(valuesOf('base', metric), valuesOf('new', metric))]),
    ) as Record<Metric, MetricComparison>;
    const direct = ofModel.filter((record) => record.target === 'direct');
    const failuresOf = (target: RunRecord['target']): number =>
      ofModel.filter((record) => record.target === target).reduce((sum, record) => sum + record.failures, 0);
    return {
      model,
      metrics,
      direct: {
        p50Ms: round3(median(direct.map((record) => record.p50Ms))),
        p99Ms: round3(median(direct.map((record) => record.p99Ms))),
      },
      failures: { base: failuresOf('base'), new: failuresOf('new'), direct: failuresOf('direct') },
      fewestMeasured: Math.min(...ofModel.map((record) => record.ok)),
    };
  });
}

function metricOf(
  run: RunRecord | undefined,
  direct: RunRecord | undefined,
  metric: Metric,
): number | undefined {
  if (run === undefined) return undefined;
  switch (metric) {
    case 'cpuUsPerRequest':
      return run.cpuUsPerRequest;
    case 'p50Ms':
      return run.p50Ms;
    case 'p99Ms':
      return run.p99Ms;
    case 'addedP50Ms':
      return direct === undefined ? undefined : run.p50Ms - direct.p50Ms;
    case 'addedP99Ms':
      return direct === undefined ? undefined : run.p99Ms - direct.p99Ms;
  }
}

/** Rounds where either value is missing count for neither side's median. */
function compareMetric(
  base: readonly (number | undefined)[],
  next: readonly (number | undefined)[],
): MetricComparison {
  const pairs = base.flatMap((value, index) => {
    const other = next[index];
    return value === undefined || other === undefined ? [] : [[value, other] as const];
  });
  const baseMedian = round3(median(pairs.map(([value]) => value)));
  const nextMedian = round3(median(pairs.map(([, value]) => value)));
  const perRound = pairs.map(([value, other]) => percentChange(value, other));
  const paired = perRound.filter((change): change is number => change !== null);
  return {
    base: baseMedian,
    next: nextMedian,
    changePercent: percentChange(baseMedian, nextMedian),
    pairedChangePercent: paired.length === 0 ? null : Math.round(median(paired) * 10) / 10,
    newHigher: pairs.filter(([value, other]) => other > value).length,
    rounds: pairs.length,
  };
}

const LABELS: Record<Metric, string> = {
  cpuUsPerRequest: 'CPU us/request',
  p50Ms: 'p50 ms',
  p99Ms: 'p99 ms',
  addedP50Ms: 'added p50 ms',
  addedP99Ms: 'added p99 ms',
};

/**
 * A plain-text table: per model and metric, base -> new, change of the medians, median paired change
 * and the rounds in which new measured higher.
 */
export function formatComparison(comparisons: readonly ModelComparison[]): string {
  const rows = [['model', 'metric', 'base', 'new', 'change', 'paired', 'new higher']];
  for (const comparison of comparisons)
    for (const metric of METRICS) {
      const value = comparison.metrics[metric];
      rows.push([
        comparison.model,
        LABELS[metric],
        String(value.base),
        String(value.next),
        toPercentText(value.changePercent),
        toPercentText(value.pairedChangePercent),
        `${value.newHigher}/${value.rounds}`,
      ]);
    }
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function toPercentText(change: number | null): string {
  if (change === null) return 'n/a';
  return `${change > 0 ? '+' : ''}${change.toFixed(1)}%`;
}
