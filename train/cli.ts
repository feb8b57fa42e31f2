/**
 * Trains the local complexity model offline; the service only loads the file it writes.
 *
 *   npm run train                      reproduce src/classify/model/local-model.json (training-inputs.ts)
 *   npm run train -- --check           retrain in memory; exit 1 when the result differs from that file
 *   npm run train -- --write-held-out artifacts/dev-held-out.jsonl   dev's never-trained share, for npm run eval
 *   npm run train -- <labeled.jsonl>... [--reviewed <file>] [--holdout <file>] [--out <file>] ...
 *
 * Lines with `acceptable` are gold, lines with `"reviewed": true` are reviewed (trained on like gold,
 * never scored), the others weak (down-weighted, soft targets from the README's agreement table). A
 * `--reviewed` file (id and label per line) gives the weak examples it lists an annotator's reviewed
 * label. A fixed share of the gold examples, chosen by a hash of their id, plus every `--holdout` file,
 * is never trained on: the script reports it separately. K-fold cross-validation over the remaining
 * gold examples fits the temperature and the decision policy (on the sources `--tune-exclude-source`
 * leaves). No file under eval/ is ever trained on. The model records the command, the seed and each
 * input file's path and SHA-256, so `npm run train` with the same inputs writes the same bytes.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_DECISION } from '../src/classify/local-classifier.js';
import { toLocalModelJson } from '../src/classify/local-model.js';
import { DEFAULT_PENALTIES } from './calibration.js';
import { crossValidate, type CrossValidationReport } from './cross-validation.js';
import { writeHeldOutFile } from './held-out-file.js';
import { describeDifference } from './model-difference.js';
import { writeOutOfFold } from './out-of-fold-file.js';
import { evaluateHoldout, roundMetrics, type HoldoutSet } from './holdout-evaluation.js';
import { toTrainingMetadata } from './training-metadata.js';
import { TRAIN_USAGE } from './train-usage.js';
import { addTraffic, reportBefore } from './from-traffic.js';
import { DEFAULT_TRAFFIC_TRAINING } from './traffic-examples.js';
import { readLabeledExamples, type LabeledExample } from './labeled-example.js';
import { LOCAL_MODES } from './mode-evaluation.js';
import {
  DEFAULT_TRAINING_CONFIG,
  fitWeights,
  prepareData,
  toLocalModel,
  type TrainingConfig,
} from './model-fitting.js';
import { applyReviewedLabels, readReviewedLabels } from './reviewed-labels.js';
import { toSourceGroup } from './source-groups.js';
import { formatTierMetrics, toSourceAccuracy, type TierMetrics } from './tier-metrics.js';
import {
  assertNotEvalFile,
  DEFAULT_HELD_OUT_SHARE,
  DEFAULT_MODEL_FILE,
  DEFAULT_REVIEWED_FILES,
  DEFAULT_TRAINING_FILES,
  toReadablePath,
  isHeldOut,
  toInputRecord,
} from './training-inputs.js';

const { values: flags, positionals: files } = parseArgs({
  allowPositionals: true,
  options: {
    out: { type: 'string', default: DEFAULT_MODEL_FILE },
    /** Retrains in memory and compares with `--out` instead of writing it. */
    check: { type: 'boolean', default: false },
    /** Writes the held-out gold lines of the training files to this file and stops (no training). */
    'write-held-out': { type: 'string' },
    holdout: { type: 'string', multiple: true, default: [] },
    reviewed: { type: 'string', multiple: true },
    'reviewed-weight': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.reviewedWeight) },
    'reviewed-source-cap': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.reviewedSourceCap) },
    'reviewed-share': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.reviewedLabelShare) },
    'holdout-share': { type: 'string', default: String(DEFAULT_HELD_OUT_SHARE) },
    seed: { type: 'string', default: '1' },
    restarts: { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.restarts) },
    folds: { type: 'string', default: '5' },
    /** `source`: the folds hold out whole sources; `id`: a hash of the id (the default). */
    'fold-by': { type: 'string', default: 'id' },
    'hash-bits': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.hashBits) },
    epochs: { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.epochs) },
    l2: { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.l2) },
    'learning-rate': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.learningRate) },
    'gold-weight': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.goldWeight) },
    'weak-weight': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.weakWeight) },
    'weak-source-cap': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.weakSourceCap) },
    /**
     * The 6% under-routing target less one standard error of an out-of-fold rate near 6% over about
     * 900 gold examples (sqrt(0.06 * 0.94 / 900) = 0.008), so the chosen policy stays under 6% on
     * unseen prompts too.
     */
    'max-under': { type: 'string', default: '0.052' },
    /** Sources whose gold examples do not tune the decision (they still train and are scored). */
    'tune-exclude-source': { type: 'string', multiple: true, default: [] },
    'min-weight': { type: 'string', default: '0.002' },
    'no-signals': { type: 'boolean', default: false },
    /** Skips the learned/heuristic blend of `local` mode (the ablation). */
    'no-blend': { type: 'boolean', default: false },
    'no-cv': { type: 'boolean', default: false },
    'dry-run': { type: 'boolean', default: false },
    'by-source': { type: 'boolean', default: false },
    /** Writes every out-of-fold prediction (id, label, probabilities, signals) here, for error analysis. */
    oof: { type: 'string' },
    /** `classifier.learn` records trained on as extra weak examples. */
    'from-traffic': { type: 'string', multiple: true, default: [] },
    'traffic-weight': { type: 'string', default: String(DEFAULT_TRAFFIC_TRAINING.weight) },
    'traffic-label-share': { type: 'string', default: String(DEFAULT_TRAFFIC_TRAINING.labelShare) },
    /** The model a `--from-traffic` refit is compared with (default: `--out` as it is now). */
    before: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

/** The project root: `npm run` starts scripts there, and recorded paths are relative to it. */
const root = process.cwd();
const trainingFiles =
  files.length === 0 ? DEFAULT_TRAINING_FILES.map((path) => toReadablePath(path, root)) : files;
const reviewedFiles = flags.reviewed ?? (files.length === 0 ? [...DEFAULT_REVIEWED_FILES] : []);
/** How to make this model again: the arguments as given, without `--check`. */
const command = toCommand(process.argv.slice(2).filter((argument) => argument !== '--check'));

function toCommand(args: readonly string[]): string {
  const quoted = args.map((argument) =>
    /^[\w./:=,-]+$/.test(argument) ? argument : JSON.stringify(argument),
  );
  return quoted.length === 0 ? 'npm run train' : `npm run train -- ${quoted.join(' ')}`;
}

const config: TrainingConfig = {
  ...DEFAULT_TRAINING_CONFIG,
  hashBits: Number(flags['hash-bits']),
  useSignals: !flags['no-signals'],
  epochs: Number(flags.epochs),
  learningRate: Number(flags['learning-rate']),
  l2: Number(flags.l2),
  goldWeight: Number(flags['gold-weight']),
  weakWeight: Number(flags['weak-weight']),
  weakSourceCap: Number(flags['weak-source-cap']),
  reviewedWeight: Number(flags['reviewed-weight']),
  reviewedSourceCap: Number(flags['reviewed-source-cap']),
  reviewedLabelShare: Number(flags['reviewed-share']),
  seed: Number(flags.seed),
  restarts: Number(flags.restarts),
};
const log = (line: string): void => console.log(line);

/** `--tune-exclude-source`: gold examples of these sources train and are scored, but do not tune the decision. */
const tuneExcluded = flags['tune-exclude-source'];
const isTunedOn = (example: LabeledExample): boolean => !tuneExcluded.includes(example.source);

function formatModes(title: string, modes: Record<string, TierMetrics>): void {
  log(title);
  for (const mode of LOCAL_MODES) {
    const metrics = modes[mode];
    if (metrics !== undefined) log(`  ${mode.padEnd(9)} ${formatTierMetrics(metrics)}`);
  }
}

function main(): void {
  if (flags.help) {
    log(TRAIN_USAGE);
    return;
  }
  for (const file of trainingFiles) assertNotEvalFile(file, root);
  const share = Number(flags['holdout-share']);
  const loaded = withReviewedLabels(trainingFiles.flatMap((file) => readLabeledExamples(file)));
  const heldOut = loaded.filter((example) => isHeldOut(example, share));
  const heldOutFile = flags['write-held-out'];
  if (heldOutFile !== undefined) {
    const ids = new Set(heldOut.map((example) => example.id));
    const count = writeHeldOutFile(heldOutFile, { sourceFiles: trainingFiles, ids });
    log(`wrote ${count} held-out gold lines (never trained on) to ${heldOutFile}`);
    return;
  }
  const holdoutSets = toHoldoutSets(heldOut, share);
  const training = loaded.filter((example) => !isHeldOut(example, share));
  const holdoutCount = holdoutSets.reduce((sum, set) => sum + (set.counted ? set.examples.length : 0), 0);
  log(
    `examples: ${training.length} for training (${training.filter((e) => e.gold).length} gold), ${holdoutCount} held out`,
  );
  if (flags['from-traffic'].length > 0) reportBefore(flags.before ?? flags.out, holdoutSets, log);
  const text = toModelText(training, { holdoutSets, holdoutCount });
  log(`model: ${(text.length / 1e6).toFixed(2)} MB`);
  if (flags.check) return checkModel(text);
  if (flags['dry-run']) return;
  mkdirSync(dirname(flags.out), { recursive: true });
  writeFileSync(flags.out, text);
  log(`wrote ${flags.out}`);
}

/** The hash split, its real-prompt subset when `--tune-exclude-source` is set, and every `--holdout` file. */
function toHoldoutSets(
  heldOut: readonly LabeledExample[],
  share: number,
): (HoldoutSet & { counted: boolean })[] {
  const sets = [{ name: `hash split (${share} of gold)`, examples: heldOut, counted: true }];
  if (tuneExcluded.length > 0)
    sets.push({
      name: `hash split, sources other than ${tuneExcluded.join(', ')}`,
      examples: heldOut.filter(isTunedOn),
      counted: false,
    });
  for (const file of flags.holdout)
    sets.push({ name: file, examples: readLabeledExamples(file), counted: true });
  return sets;
}

/** Fits the model on `training` and returns the model file's text, held-out metrics included. */
function toModelText(
  training: readonly LabeledExample[],
  holdout: { holdoutSets: readonly HoldoutSet[]; holdoutCount: number },
): string {
  const traffic = addTraffic(prepareData(training, config), flags['from-traffic'], {
    weight: Number(flags['traffic-weight']),
    labelShare: Number(flags['traffic-label-share']),
  });
  const data = traffic.data;
  const weak = [...training.flatMap((example, index) => (example.gold ? [] : [index])), ...traffic.indices];
  const gold = training.flatMap((example, index) => (example.gold ? [index] : []));
  const report = flags['no-cv'] ? undefined : runCrossValidation(data, { weak, gold });
  const weights = fitWeights(data, [...weak, ...gold], config);
  const model = toLocalModel(data, weights, {
    temperature: report?.temperature ?? 1,
    decision: report?.decision ?? DEFAULT_DECISION,
    blend: report?.blend,
    metadata: toTrainingMetadata({
      command,
      config,
      inputs: [
        ...trainingFiles.map((file) => toInputRecord(file, { root, use: 'examples' })),
        ...reviewedFiles.map((file) => toInputRecord(file, { root, use: 'reviewed labels' })),
      ],
      training,
      holdoutCount: holdout.holdoutCount,
      report,
    }),
  });
  const json = toLocalModelJson(model, Number(flags['min-weight']));
  const serialized = JSON.stringify(json);
  const holdoutMetrics = Object.fromEntries(
    holdout.holdoutSets.map((set) => [set.name, scoreHoldout(serialized, set)]),
  );
  json.metadata = {
    ...json.metadata,
    holdout: holdoutMetrics,
    ...(traffic.metadata === undefined ? {} : { traffic: traffic.metadata }),
  };
  return `${JSON.stringify(json)}\n`;
}

/** `--check`: the committed model must be exactly what these inputs and settings train. */
function checkModel(text: string): void {
  const difference = describeDifference(existsSync(flags.out) ? readFileSync(flags.out, 'utf8') : '', text);
  if (difference === undefined) {
    log(`${flags.out} is reproduced byte for byte`);
    return;
  }
  console.error(
    `${flags.out} is not what \`${command}\` trains: ${difference}. Retrain and commit it with the data.`,
  );
  process.exitCode = 1;
}

function withReviewedLabels(examples: LabeledExample[]): LabeledExample[] {
  let result = examples;
  for (const file of reviewedFiles) {
    const applied = applyReviewedLabels(result, readReviewedLabels(file));
    log(
      `reviewed labels ${file}: ${applied.applied} weak examples relabeled (${applied.changed} changed tier), ${applied.unmatched.length} ids matched no weak example`,
    );
    result = applied.examples;
  }
  return result;
}

function runCrossValidation(
  data: ReturnType<typeof prepareData>,
  split: { weak: number[]; gold: number[] },
): CrossValidationReport {
  if (flags['fold-by'] !== 'source' && flags['fold-by'] !== 'id')
    throw new Error(`--fold-by is source or id, not ${flags['fold-by']}`);
  log(
    `cross-validation: ${flags.folds} folds by ${flags['fold-by']} over ${split.gold.length} gold examples`,
  );
  const report = crossValidate(data, split, {
    folds: Number(flags.folds),
    config,
    tuning: {
      maxUnder: Number(flags['max-under']),
      penalties: DEFAULT_PENALTIES,
    },
    heuristicPolicy: DEFAULT_DECISION,
    blend: !flags['no-blend'],
    tuneOn: tuneExcluded.length === 0 ? undefined : isTunedOn,
    groups:
      flags['fold-by'] === 'source' ? data.encoded.map(({ example }) => toSourceGroup(example)) : undefined,
    log,
  });
  const mean = report.foldExact.reduce((sum, value) => sum + value, 0) / report.foldExact.length;
  for (const { policy, metrics } of report.candidates)
    log(`  underPenalty ${String(policy.underPenalty).padEnd(4)} local ${formatTierMetrics(metrics)}`);
  log(`  temperature ${report.temperature.toFixed(3)}, underPenalty ${report.decision.underPenalty}`);
  log(
    `  local exact per fold: ${report.foldExact.map((value) => (100 * value).toFixed(1)).join(' ')}; mean ${(100 * mean).toFixed(1)}%`,
  );
  formatModes('cross-validation (pooled out-of-fold):', report.pooled);
  if (report.tunedSubset !== undefined)
    formatModes(
      `cross-validation, the ${report.tunedSubset.count} examples the decision was tuned on (sources other than ${tuneExcluded.join(', ')}):`,
      report.tunedSubset.metrics,
    );
  if (flags.oof !== undefined)
    log(`wrote ${writeOutOfFold(flags.oof, report)} out-of-fold predictions to ${flags.oof}`);
  return report;
}

function scoreHoldout(serialized: string, holdout: HoldoutSet): Record<string, Record<string, number>> {
  if (holdout.examples.length === 0) return {};
  const result = evaluateHoldout(serialized, holdout);
  formatModes(
    `held out, ${holdout.name} (${holdout.examples.length} examples never trained on):`,
    result.modes,
  );
  if (flags['by-source'])
    for (const entry of toSourceAccuracy(result.localPredictions))
      log(`    ${entry.source.padEnd(44)} ${(100 * entry.exact).toFixed(0).padStart(4)}% of ${entry.count}`);
  return Object.fromEntries(
    Object.entries(result.modes).map(([mode, metrics]) => [mode, roundMetrics(metrics)]),
  );
}

main();
