/**
 * `npm run train:report`: grouped cross-validation, the accuracy operators will see on
 * sources the model never trained on. Each public source of dev.jsonl is held out whole (its gold
 * prompts and its weak pool), and our own prompts (data/written-train.jsonl, eval/prompts.jsonl) are one
 * more group; a model trained on every other group predicts the held-out one, calibrated on the other
 * groups' gold only. Repeated over seeds; rates are mean ± standard error across seeds.
 *
 *   npm run train:report                          leave-one-source-out, seeds 1,2,3, 2 restarts per fit
 *   npm run train:report -- --write artifacts/grouped-oof.jsonl    every out-of-group prediction
 *   npm run train:report -- --folds 6 --seeds 1,2 --calibrate-on random
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_DECISION, type LocalMode } from '../src/classify/local-classifier.js';
import type { TierLogits } from '../src/classify/learned-classifier.js';
import { DEFAULT_PENALTIES } from './calibration.js';
import { toGroupedLogits, type GroupedPools } from './grouped-cross-validation.js';
import {
  formatReportRows,
  predictOutOfGroup,
  toMacroMetrics,
  toModeMetrics,
  toReportRow,
  type CalibrationSource,
  type ReportRow,
} from './grouped-report.js';
import type { GroupedPrediction } from './grouped-scoring.js';
import { readLabeledExamples, type LabeledExample } from './labeled-example.js';
import {
  DEFAULT_TRAINING_CONFIG,
  fitWeights,
  prepareData,
  type PreparedData,
  type TrainingConfig,
} from './model-fitting.js';
import type { SoftmaxWeights } from './softmax-trainer.js';
import { applyReviewedLabels, readReviewedLabels } from './reviewed-labels.js';
import { OWN_PROMPTS_GROUP, toSourceGroup } from './source-groups.js';
import type { TierMetrics } from './tier-metrics.js';
import {
  DEFAULT_HELD_OUT_SHARE,
  DEFAULT_MODEL_FILE,
  DEFAULT_REVIEWED_FILES,
  DEFAULT_TRAINING_FILES,
  EVAL_FILE,
  isHeldOut,
  toReadablePath,
} from './training-inputs.js';

const { values: flags } = parseArgs({
  options: {
    seeds: { type: 'string', default: '1,2,3' },
    /** Grouped folds; 0 = leave one source out. */
    folds: { type: 'string', default: '0' },
    'random-folds': { type: 'string', default: '5' },
    /** SGD restarts per fit: 2 rather than the shipped 8, so a seed's 28 fits take minutes. */
    restarts: { type: 'string', default: '2' },
    epochs: { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.epochs) },
    l2: { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.l2) },
    'gold-weight': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.goldWeight) },
    'weak-source-cap': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.weakSourceCap) },
    'reviewed-source-cap': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.reviewedSourceCap) },
    /** Multiplies the loss weight of our written prompts (experiment). */
    'written-weight': { type: 'string', default: '1' },
    /** Largest total loss weight of one source's gold prompts (experiment; 0 = no cap). */
    'gold-source-cap': { type: 'string', default: '0' },
    /** Largest total loss weight of one source group, gold, reviewed and weak together (experiment; 0 = no cap). */
    'source-cap': { type: 'string', default: '0' },
    /** Multiplies every n-gram feature value (experiment; 0 = signals and numbers only). */
    'ngram-scale': { type: 'string', default: '1' },
    /** Trains only n-gram rows present in at least this many source groups of the fit's training set (experiment). */
    'min-ngram-sources': { type: 'string', default: '0' },
    'max-under': { type: 'string', default: '0.052' },
    'calibrate-on': { type: 'string', default: 'random' },
    'no-blend': { type: 'boolean', default: false },
    jobs: { type: 'string', default: '2' },
    write: { type: 'string' },
    'cache-dir': { type: 'string', default: 'artifacts/grouped-cv' },
    /** Internal: fill the cache for the given seeds and stop (the parent's worker processes). */
    worker: { type: 'boolean', default: false },
  },
});

const root = process.cwd();
const log = (line: string): void => console.log(line);
const seeds = flags.seeds.split(',').map(Number);
const calibrateOn = toCalibrationSource(flags['calibrate-on']);

function toCalibrationSource(value: string): CalibrationSource {
  if (value === 'grouped' || value === 'random') return value;
  throw new Error(`--calibrate-on is grouped or random, not ${value}`);
}

const baseConfig: TrainingConfig = {
  ...DEFAULT_TRAINING_CONFIG,
  restarts: Number(flags.restarts),
  epochs: Number(flags.epochs),
  l2: Number(flags.l2),
  goldWeight: Number(flags['gold-weight']),
  weakSourceCap: Number(flags['weak-source-cap']),
  reviewedSourceCap: Number(flags['reviewed-source-cap']),
};

function loadExamples(): { training: LabeledExample[]; evalSet: LabeledExample[] } {
  let examples = DEFAULT_TRAINING_FILES.flatMap((file) => readLabeledExamples(toReadablePath(file, root)));
  for (const file of DEFAULT_REVIEWED_FILES)
    examples = applyReviewedLabels(examples, readReviewedLabels(toReadablePath(file, root))).examples;
  return { training: examples, evalSet: readLabeledExamples(join(root, EVAL_FILE)) };
}

/** Sample-weight experiments: written prompts scaled, gold capped per source. */
function reweigh(data: PreparedData, examples: readonly LabeledExample[]): void {
  const written = Number(flags['written-weight']);
  const goldCap = Number(flags['gold-source-cap']);
  const goldCounts = new Map<string, number>();
  for (const example of examples)
    if (example.gold) goldCounts.set(example.source, (goldCounts.get(example.source) ?? 0) + 1);
  examples.forEach((example, index) => {
    const weight = data.sampleWeights[index] ?? 0;
    if (example.reviewed && toSourceGroup(example) === OWN_PROMPTS_GROUP)
      data.sampleWeights[index] = weight * written;
    if (example.gold && goldCap > 0)
      data.sampleWeights[index] = weight * Math.min(1, goldCap / (goldCounts.get(example.source) ?? 1));
  });
}

/** Source-blind experiments: every group's total weight capped, n-gram values scaled. */
function reshape(data: PreparedData, examples: readonly LabeledExample[], pools: GroupedPools): void {
  const cap = Number(flags['source-cap']);
  if (cap > 0) {
    const totals = new Map<string, number>();
    for (const index of pools.train) {
      const group = pools.groups[index] ?? '';
      totals.set(group, (totals.get(group) ?? 0) + (data.sampleWeights[index] ?? 0));
    }
    examples.forEach((_, index) => {
      const total = totals.get(pools.groups[index] ?? '') ?? 0;
      if (total > cap) data.sampleWeights[index] = (data.sampleWeights[index] ?? 0) * (cap / total);
    });
  }
  const scale = Number(flags['ngram-scale']);
  if (scale !== 1) {
    const hashRows = 2 ** data.spec.hashBits;
    data.matrix.rows.forEach((row, position) => {
      if (row < hashRows) data.matrix.values[position] = (data.matrix.values[position] ?? 0) * scale;
    });
  }
}

/** `fitWeights` on a matrix keeping only the n-gram rows seen in at least `minSources` groups of `train`. */
function fitSourceShared(minSources: number, groups: readonly string[]) {
  return (data: PreparedData, train: readonly number[], config: TrainingConfig): SoftmaxWeights => {
    const hashRows = 2 ** data.spec.hashBits;
    const counts = new Uint16Array(hashRows);
    const lastGroup = new Int32Array(hashRows).fill(-1);
    const groupIds = new Map<string, number>();
    const byGroup = [...train].sort((a, b) => (groups[a] ?? '').localeCompare(groups[b] ?? ''));
    for (const index of byGroup) {
      const name = groups[index] ?? '';
      const id = groupIds.get(name) ?? groupIds.size;
      groupIds.set(name, id);
      for (
        let position = data.matrix.offsets[index] ?? 0;
        position < (data.matrix.offsets[index + 1] ?? 0);
        position += 1
      ) {
        const row = data.matrix.rows[position] ?? 0;
        if (row >= hashRows || lastGroup[row] === id) continue;
        lastGroup[row] = id;
        counts[row] = (counts[row] ?? 0) + 1;
      }
    }
    const values = Float32Array.from(data.matrix.values);
    data.matrix.rows.forEach((row, position) => {
      if (row < hashRows && (counts[row] ?? 0) < minSources) values[position] = 0;
    });
    return fitWeights({ ...data, matrix: { ...data.matrix, values } }, train, config);
  };
}

function toPools(examples: readonly LabeledExample[], trainingCount: number): GroupedPools {
  const all = examples.map((_, index) => index);
  const inTraining = (index: number): boolean => index < trainingCount;
  const heldOut = (index: number): boolean => {
    const example = examples[index];
    return example !== undefined && isHeldOut(example, DEFAULT_HELD_OUT_SHARE);
  };
  return {
    train: all.filter((index) => inTraining(index) && !heldOut(index)),
    scored: all.filter((index) => {
      const example = examples[index];
      return example !== undefined && (example.gold || toSourceGroup(example) === OWN_PROMPTS_GROUP);
    }),
    tuning: all.filter((index) => inTraining(index) && examples[index]?.gold === true && !heldOut(index)),
    groups: examples.map(toSourceGroup),
  };
}

/** A fingerprint of everything a fit depends on: features, targets, weights, pools and settings. */
function toFingerprint(data: PreparedData, pools: GroupedPools): string {
  const hash = createHash('sha256');
  for (const array of [
    data.matrix.offsets,
    data.matrix.rows,
    data.matrix.values,
    data.targets,
    data.sampleWeights,
  ])
    hash.update(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
  const minNgramSources = Number(flags['min-ngram-sources']);
  hash.update(
    JSON.stringify({
      ...baseConfig,
      seed: 0,
      pools,
      folds: flags.folds,
      ...(minNgramSources > 0 ? { minNgramSources } : {}),
    }),
  );
  return hash.digest('hex').slice(0, 16);
}

function createCache(directory: string, prefix: string) {
  mkdirSync(directory, { recursive: true });
  return (key: string, compute: () => Map<number, TierLogits>): Map<number, TierLogits> => {
    const file = join(
      directory,
      `${prefix}-${createHash('sha256').update(key).digest('hex').slice(0, 12)}.json`,
    );
    if (existsSync(file)) return new Map(JSON.parse(readFileSync(file, 'utf8')) as [number, TierLogits][]);
    const computed = compute();
    writeFileSync(file, JSON.stringify([...computed.entries()]));
    return computed;
  };
}

async function fillInWorkers(): Promise<void> {
  const jobs = Math.max(1, Math.min(Number(flags.jobs), seeds.length));
  if (jobs <= 1) return;
  const chunks = Array.from({ length: jobs }, (_, job) =>
    seeds.filter((_, position) => position % jobs === job),
  );
  const args = process.argv
    .slice(2)
    .filter((argument, position, all) => !argument.startsWith('--seeds') && all[position - 1] !== '--seeds');
  await Promise.all(
    chunks.map(
      (chunk) =>
        new Promise<void>((resolve, reject) => {
          const child = spawn(
            process.execPath,
            [...process.execArgv, process.argv[1] ?? '', ...args, `--seeds=${chunk.join(',')}`, '--worker'],
            { stdio: 'inherit' },
          );
          child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`worker exited ${code}`))));
        }),
    ),
  );
}

type Metrics = Record<LocalMode, Pick<TierMetrics, 'exact' | 'under' | 'over' | 'count'>>;

function toMetrics(data: PreparedData, predictions: readonly GroupedPrediction[]): Metrics {
  return {
    heuristic: toModeMetrics(data, predictions, 'heuristic'),
    learned: toModeMetrics(data, predictions, 'learned'),
    local: toModeMetrics(data, predictions, 'local'),
  };
}

async function main(): Promise<void> {
  const { training, evalSet } = loadExamples();
  const examples = [...training, ...evalSet];
  const data = prepareData(examples, baseConfig);
  reweigh(data, examples);
  const pools = toPools(examples, training.length);
  reshape(data, examples, pools);
  const minNgramSources = Number(flags['min-ngram-sources']);
  const fingerprint = toFingerprint(data, pools);
  if (!flags.worker) await fillInWorkers();
  const perSeed = seeds.map((seed) => {
    const config = { ...baseConfig, seed };
    const cached = createCache(flags['cache-dir'], `${fingerprint}-s${seed}`);
    const logits = toGroupedLogits(data, pools, {
      config,
      folds: Number(flags.folds),
      randomFolds: calibrateOn === 'random' ? Number(flags['random-folds']) : 0,
      cached,
      log,
      ...(minNgramSources > 0 ? { fit: fitSourceShared(minNgramSources, pools.groups) } : {}),
    });
    if (flags.worker) return [];
    return predictOutOfGroup(
      data,
      { pools, logits, calibrateOn },
      {
        tuning: { maxUnder: Number(flags['max-under']), penalties: DEFAULT_PENALTIES },
        blend: !flags['no-blend'],
        heuristicPolicy: DEFAULT_DECISION,
      },
    );
  });
  if (flags.worker) return;
  report(data, perSeed);
  if (flags.write !== undefined) writePredictions(flags.write, data, perSeed);
}

function report(data: PreparedData, perSeed: readonly GroupedPrediction[][]): void {
  const exampleOf = (prediction: GroupedPrediction): LabeledExample | undefined =>
    data.encoded[prediction.index]?.example;
  const isDev = (prediction: GroupedPrediction): boolean =>
    exampleOf(prediction)?.gold === true &&
    toSourceGroup(exampleOf(prediction) ?? { source: '' }) !== OWN_PROMPTS_GROUP;
  const sources = [...new Set(perSeed[0]?.filter(isDev).map((p) => exampleOf(p)?.source ?? '') ?? [])].sort();
  const rowOf = (name: string, keep: (prediction: GroupedPrediction) => boolean): ReportRow =>
    toReportRow(
      name,
      perSeed.map((predictions) => toMetrics(data, predictions.filter(keep))),
    );
  const sourceRows = sources.map((source) =>
    rowOf(source, (p) => isDev(p) && exampleOf(p)?.source === source),
  );
  const macro = toReportRow(
    `dev, macro average over ${sources.length} sources`,
    perSeed.map((predictions) =>
      toMacroMetrics(
        sources.map((source) =>
          toMetrics(
            data,
            predictions.filter((p) => isDev(p) && exampleOf(p)?.source === source),
          ),
        ),
      ),
    ),
  );
  const heldOut = (p: GroupedPrediction): boolean => {
    const example = exampleOf(p);
    return example !== undefined && isHeldOut(example, DEFAULT_HELD_OUT_SHARE);
  };
  log('');
  log(
    `grouped cross-validation: ${flags.folds === '0' ? 'leave one source out' : `${flags.folds} grouped folds`}, seeds ${seeds.join(',')}, ${baseConfig.restarts} restarts x ${baseConfig.epochs} epochs per fit, calibrated on ${calibrateOn} out-of-fold predictions of the other groups; rates in %, mean±SE over seeds`,
  );
  for (const line of formatReportRows(sourceRows)) log(line);
  log('');
  const overall = [
    rowOf('dev, all 684 real prompts, pooled', isDev),
    macro,
    rowOf("dev's 548 (the 5-fold CV's)", (p) => isDev(p) && !heldOut(p)),
    rowOf("dev's held-out 136", (p) => isDev(p) && heldOut(p)),
    rowOf('eval/prompts.jsonl (ours, trained without ours)', (p) => exampleOf(p)?.source === 'autotier'),
    rowOf('written-train (reviewed labels, not gold)', (p) => exampleOf(p)?.reviewed === true),
  ];
  for (const line of formatReportRows(overall)) log(line);
  logToday();
}

/** Today's figures, as the shipped model file records them (random 5-fold and the hash held-out share). */
function logToday(): void {
  const file = join(root, DEFAULT_MODEL_FILE);
  if (!existsSync(file)) return;
  const metadata =
    (JSON.parse(readFileSync(file, 'utf8')) as { metadata?: Record<string, unknown> }).metadata ?? {};
  const cv = (metadata['crossValidation'] as { modes?: Record<string, Record<string, number>> } | undefined)
    ?.modes;
  const holdout = metadata['holdout'] as Record<string, Record<string, Record<string, number>>> | undefined;
  const line = (name: string, modes: Record<string, Record<string, number>> | undefined): void => {
    if (modes === undefined) return;
    const rate = (mode: string, key: string): string => `${(100 * (modes[mode]?.[key] ?? 0)).toFixed(1)}`;
    log(
      `${name.padEnd(46)} ${String(modes['local']?.['count'] ?? '').padStart(4)}  ${[
        rate('local', 'exact'),
        rate('local', 'under'),
        rate('local', 'over'),
      ]
        .map((value) => value.padStart(10))
        .join(' ')}   ${[
        rate('heuristic', 'exact'),
        rate('heuristic', 'under'),
        rate('learned', 'exact'),
        rate('learned', 'under'),
      ]
        .map((value) => value.padStart(10))
        .join(' ')}`,
    );
  };
  log('');
  log("today's numbers (shipped model file; sources shared with training):");
  line('dev 548, random 5-fold out-of-fold', cv);
  for (const [name, modes] of Object.entries(holdout ?? {})) line(`held out: ${name}`, modes);
}

function writePredictions(file: string, data: PreparedData, perSeed: readonly GroupedPrediction[][]): void {
  const lines = perSeed.flatMap((predictions, position) =>
    predictions.map((prediction) => {
      const encoded = data.encoded[prediction.index];
      return JSON.stringify({
        seed: seeds[position],
        id: encoded?.example.id,
        source: encoded?.example.source,
        group: toSourceGroup(encoded?.example ?? { source: '' }),
        label: encoded?.example.label,
        acceptable: encoded?.example.acceptable,
        gold: encoded?.example.gold,
        ...prediction.predicted,
        probabilities: prediction.local,
        signals: encoded?.heuristic.signals,
        prompt: encoded?.input.text.slice(0, 200),
      });
    }),
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
  log(`wrote ${lines.length} out-of-group predictions to ${file}`);
}

await main();
