import type { LocalMode } from '../src/classify/local-classifier.js';
import type { GroupedLogits, GroupedPools } from './grouped-cross-validation.js';
import {
  fitCalibration,
  predictModes,
  type CalibrationOptions,
  type GroupedPrediction,
} from './grouped-scoring.js';
import type { PreparedData } from './model-fitting.js';
import { LOCAL_MODES } from './mode-evaluation.js';
import { toTierMetrics, type TierMetrics } from './tier-metrics.js';

/** Which out-of-fold predictions fit the calibration of a held-out group's model. */
export type CalibrationSource = 'grouped' | 'random';

/**
 * Every scored example of one seed, each predicted by the model that never saw its group and calibrated
 * on the other groups' tuning gold only (cross-fitted: the held-out group never tunes its own rule).
 */
export function predictOutOfGroup(
  data: PreparedData,
  run: { pools: GroupedPools; logits: GroupedLogits; calibrateOn: CalibrationSource },
  options: CalibrationOptions,
): GroupedPrediction[] {
  const { pools, logits } = run;
  const calibrationLogits = run.calibrateOn === 'grouped' ? logits.outOfGroup : logits.randomFold;
  const names = [...new Set(pools.scored.map((index) => pools.groups[index] ?? ''))].sort();
  return names.flatMap((name) => {
    const calibration = fitCalibration(
      data,
      {
        indices: pools.tuning.filter((index) => pools.groups[index] !== name),
        logits: calibrationLogits,
      },
      options,
    );
    return predictModes(
      data,
      { indices: pools.scored.filter((index) => pools.groups[index] === name), logits: logits.outOfGroup },
      { calibration, heuristicPolicy: options.heuristicPolicy },
    );
  });
}

/** Metrics of one mode over some predictions. */
export function toModeMetrics(
  data: PreparedData,
  predictions: readonly GroupedPrediction[],
  mode: LocalMode,
): TierMetrics {
  return toTierMetrics(
    predictions.map(({ index, predicted }) => {
      const example = data.encoded[index]?.example;
      return {
        predicted: predicted[mode],
        label: example?.label ?? 'MODERATE',
        acceptable: example?.acceptable ?? [],
        source: example?.source ?? '',
      };
    }),
  );
}

/** Mean and standard error (sample standard deviation / sqrt(n)) of one rate across seeds. */
export interface SeedSpread {
  mean: number;
  standardError: number;
}

export function toSeedSpread(values: readonly number[]): SeedSpread {
  const count = values.length;
  const mean = values.reduce((sum, value) => sum + value, 0) / Math.max(1, count);
  if (count < 2) return { mean, standardError: 0 };
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (count - 1);
  return { mean, standardError: Math.sqrt(variance / count) };
}

export type RateName = 'exact' | 'under' | 'over';
const RATES: readonly RateName[] = ['exact', 'under', 'over'];

/** One row of the report: a set of prompts, its size and each mode's rates over the seeds. */
export interface ReportRow {
  name: string;
  count: number;
  modes: Record<LocalMode, Record<RateName, SeedSpread>>;
}

/**
 * A report row from per-seed metrics of the same prompts (`perSeed[seed][mode]`). `macro` rows pass
 * the mean over sources of each seed as that seed's metrics.
 */
export function toReportRow(
  name: string,
  perSeed: readonly Record<LocalMode, Pick<TierMetrics, RateName | 'count'>>[],
): ReportRow {
  const modes = Object.fromEntries(
    LOCAL_MODES.map((mode) => [
      mode,
      Object.fromEntries(
        RATES.map((rate) => [rate, toSeedSpread(perSeed.map((metrics) => metrics[mode][rate]))]),
      ),
    ]),
  ) as ReportRow['modes'];
  return { name, count: perSeed[0]?.local.count ?? 0, modes };
}

/** The mean over `sources` of each rate, as one pseudo-metrics record per mode (the macro average). */
export function toMacroMetrics(
  sources: readonly Record<LocalMode, Pick<TierMetrics, RateName | 'count'>>[],
): Record<LocalMode, Pick<TierMetrics, RateName | 'count'>> {
  const average = (mode: LocalMode, rate: RateName): number =>
    sources.reduce((sum, metrics) => sum + metrics[mode][rate], 0) / Math.max(1, sources.length);
  return Object.fromEntries(
    LOCAL_MODES.map((mode) => [
      mode,
      {
        count: sources.reduce((sum, metrics) => sum + metrics[mode].count, 0),
        exact: average(mode, 'exact'),
        under: average(mode, 'under'),
        over: average(mode, 'over'),
      },
    ]),
  ) as Record<LocalMode, Pick<TierMetrics, RateName | 'count'>>;
}

const percent = (spread: SeedSpread): string =>
  `${(100 * spread.mean).toFixed(1)}±${(100 * spread.standardError).toFixed(1)}`;

/** Fixed-width lines: `local` exact / under / over with their SE, then heuristic's and learned's exact / under. */
export function formatReportRows(rows: readonly ReportRow[]): string[] {
  const cells = (values: readonly string[]): string => values.map((value) => value.padStart(10)).join(' ');
  const header = `${'prompts'.padEnd(46)} ${'n'.padStart(4)}  ${cells(['local ex.', 'under', 'over'])}   ${cells(['heur. ex.', 'under', 'learn. ex.', 'under'])}`;
  return [
    header,
    ...rows.map(
      ({ name, count, modes }) =>
        `${name.slice(0, 46).padEnd(46)} ${String(count).padStart(4)}  ${cells([modes.local.exact, modes.local.under, modes.local.over].map(percent))}   ${cells([modes.heuristic.exact, modes.heuristic.under, modes.learned.exact, modes.learned.under].map(percent))}`,
    ),
  ];
}
