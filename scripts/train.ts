/**
 * Trains the local complexity model (issue 3).
 *
 *   npm run train -- <labeled.jsonl>... [--out src/classify/model/local-model.json] [--holdout <file>]
 *     [--reviewed eval/reviewed-weak-labels.jsonl] [--tune-exclude-source autotier] [--holdout-share 0.2]
 *     [--seed 1] [--folds 5] [--no-signals] [--dry-run] [--oof /tmp/oof.jsonl]
 *
 * Lines with `acceptable` are gold, lines with `"reviewed": true` are reviewed (trained on like gold,
 * never scored), the others weak (down-weighted, soft targets from the README's agreement table). A
 * `--reviewed` file (id and label per line) gives the weak examples it lists an annotator's reviewed
 * label. A fixed share of the gold examples, chosen by a hash of their id, plus every `--holdout` file,
 * is never trained on: the script reports it separately. K-fold cross-validation over the remaining
 * gold examples fits the temperature and the decision policy (on the sources `--tune-exclude-source`
 * leaves).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { createLocalClassifier, DEFAULT_DECISION } from '../src/classify/local-classifier.js';
import { parseLocalModel, toLocalModelJson } from '../src/classify/local-model.js';
import { crossValidate, type CrossValidationReport } from '../src/classify/train/cross-validation.js';
import { readLabeledExamples, type LabeledExample } from '../src/classify/train/labeled-example.js';
import { applyReviewedLabels, readReviewedLabels } from '../src/classify/train/reviewed-labels.js';
import { LOCAL_MODES } from '../src/classify/train/mode-evaluation.js';
import {
  DEFAULT_TRAINING_CONFIG,
  fitWeights,
  prepareData,
  toLocalModel,
  type TrainingConfig,
} from '../src/classify/train/model-fitting.js';
import { hashId } from '../src/classify/train/random.js';
import {
  formatTierMetrics,
  toSourceAccuracy,
  toTierMetrics,
  type TierMetrics,
} from '../src/classify/train/tier-metrics.js';

const { values: flags, positionals: files } = parseArgs({
  allowPositionals: true,
  options: {
    out: { type: 'string', default: 'src/classify/model/local-model.json' },
    holdout: { type: 'string', multiple: true, default: [] },
    reviewed: { type: 'string', multiple: true, default: [] },
    'reviewed-weight': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.reviewedWeight) },
    'reviewed-source-cap': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.reviewedSourceCap) },
    'reviewed-share': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.reviewedLabelShare) },
    'holdout-share': { type: 'string', default: '0.2' },
    seed: { type: 'string', default: '1' },
    restarts: { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.restarts) },
    folds: { type: 'string', default: '5' },
    'hash-bits': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.hashBits) },
    epochs: { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.epochs) },
    l2: { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.l2) },
    'learning-rate': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.learningRate) },
    'gold-weight': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.goldWeight) },
    'weak-weight': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.weakWeight) },
    'weak-source-cap': { type: 'string', default: String(DEFAULT_TRAINING_CONFIG.weakSourceCap) },
    /**
     * Issue 3's 6% less one standard error of an out-of-fold rate near 6% over about 900 gold examples
     * (sqrt(0.06 * 0.94 / 900) = 0.008), so the chosen policy stays under 6% on unseen prompts too.
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
    help: { type: 'boolean', short: 'h', default: false },
  },
});

const USAGE = `usage: npm run train -- <labeled.jsonl>... [options]

Lines with \`acceptable\` are gold, the others weak. A hash share of the gold examples and every
--holdout file are never trained on; k-fold cross-validation over the other gold examples fits the
temperature, the blend and the decision policy.

  --out <file>            model file to write (default src/classify/model/local-model.json)
  --holdout <file>        extra file scored but never trained on (repeatable)
  --reviewed <file>       reviewed labels ({"id","label"} per line) for weak examples (repeatable)
  --holdout-share <0..1>  share of the gold examples held out by a hash of the id (default 0.2)
  --seed <n>  --folds <n> cross-validation seed and folds (default 1, 5)
  --restarts <n>          SGD runs from different seeds, weights averaged (default ${DEFAULT_TRAINING_CONFIG.restarts})
  --hash-bits <n> --epochs <n> --l2 <x> --learning-rate <x>
  --gold-weight <x> --weak-weight <x> --weak-source-cap <x>   training settings
  --reviewed-weight <x> --reviewed-source-cap <x> --reviewed-share <0..1>
  --max-under <0..1>      under-routing the tuned decision must stay below (default 0.052)
  --tune-exclude-source <s>  gold examples of this source do not tune the decision (repeatable)
  --min-weight <x>        rows with smaller weights are not stored (default 0.002)
  --no-signals            n-grams only (ablation)     --no-blend   no learned/heuristic blend
  --no-cv                 skip cross-validation       --dry-run    do not write the model
  --by-source             held-out accuracy per source
  --oof <file>            write the out-of-fold predictions for error analysis
  -h, --help              this text`;

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

/** Gold examples in the fixed holdout share: a hash of the id, independent of the seed and the file order. */
function isHeldOut(example: LabeledExample, share: number): boolean {
  return example.gold && hashId(example.id) % 1000 < share * 1000;
}

function formatModes(title: string, modes: Record<string, TierMetrics>): void {
  log(title);
  for (const mode of LOCAL_MODES) {
    const metrics = modes[mode];
    if (metrics !== undefined) log(`  ${mode.padEnd(9)} ${formatTierMetrics(metrics)}`);
  }
}

function main(): void {
  if (flags.help) {
    log(USAGE);
    return;
  }
  if (files.length === 0) throw new Error(USAGE);
  const share = Number(flags['holdout-share']);
  const loaded = withReviewedLabels(files.flatMap((file) => readLabeledExamples(file)));
  const hashSplit = loaded.filter((example) => isHeldOut(example, share));
  const holdoutSets = [
    { name: `hash split (${share} of gold)`, examples: hashSplit },
    ...(tuneExcluded.length === 0
      ? []
      : [
          {
            name: `hash split, sources other than ${tuneExcluded.join(', ')}`,
            examples: hashSplit.filter(isTunedOn),
          },
        ]),
  ];
  const holdoutFiles = flags.holdout.map((file) => ({ name: file, examples: readLabeledExamples(file) }));
  holdoutSets.push(...holdoutFiles);
  const holdout = [...hashSplit, ...holdoutFiles.flatMap(({ examples }) => examples)];
  const training = loaded.filter((example) => !isHeldOut(example, share));
  log(
    `examples: ${training.length} for training (${training.filter((e) => e.gold).length} gold), ${holdout.length} held out`,
  );
  const data = prepareData(training, config);
  const weak = training.flatMap((example, index) => (example.gold ? [] : [index]));
  const gold = training.flatMap((example, index) => (example.gold ? [index] : []));
  const report = flags['no-cv'] ? undefined : runCrossValidation(data, { weak, gold });
  const weights = fitWeights(data, [...weak, ...gold], config);
  const metadata = toMetadata({ files, training, holdout, report });
  const model = toLocalModel(data, weights, {
    temperature: report?.temperature ?? 1,
    decision: report?.decision ?? DEFAULT_DECISION,
    blend: report?.blend,
    metadata,
  });
  const json = toLocalModelJson(model, Number(flags['min-weight']));
  const serialized = JSON.stringify(json);
  const holdoutMetrics = Object.fromEntries(
    holdoutSets.map(({ name, examples }) => [name, evaluateHoldout(serialized, { name, examples })]),
  );
  json.metadata = { ...json.metadata, holdout: holdoutMetrics };
  const text = `${JSON.stringify(json)}\n`;
  log(`model: ${json.rows.count} stored rows, ${(text.length / 1e6).toFixed(2)} MB`);
  if (flags['dry-run']) return;
  mkdirSync(dirname(flags.out), { recursive: true });
  writeFileSync(flags.out, text);
  log(`wrote ${flags.out}`);
}

function withReviewedLabels(examples: LabeledExample[]): LabeledExample[] {
  let result = examples;
  for (const file of flags.reviewed) {
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
  log(`cross-validation: ${flags.folds} folds over ${split.gold.length} gold examples`);
  const report = crossValidate(data, split, {
    folds: Number(flags.folds),
    config,
    tuning: {
      maxUnder: Number(flags['max-under']),
      penalties: [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 2.75, 3, 3.25, 3.5, 3.75, 4, 5, 6, 8],
    },
    heuristicPolicy: DEFAULT_DECISION,
    blend: !flags['no-blend'],
    tuneOn: tuneExcluded.length === 0 ? undefined : isTunedOn,
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
  if (flags.oof !== undefined) writeOutOfFold(flags.oof, report);
  return report;
}

function writeOutOfFold(file: string, report: CrossValidationReport): void {
  const lines = report.items.map(({ encoded, probabilities }) =>
    JSON.stringify({
      id: encoded.example.id,
      label: encoded.example.label,
      acceptable: encoded.example.acceptable,
      source: encoded.example.source,
      heuristic: encoded.heuristic.probabilities,
      learned: probabilities.learned,
      local: probabilities.local,
      signals: encoded.heuristic.signals,
      floor: encoded.heuristic.floor,
      ceiling: encoded.heuristic.ceiling,
      prompt: encoded.input.text.slice(0, 300),
    }),
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
  log(`wrote ${lines.length} out-of-fold predictions to ${file}`);
}

/** Scores the held-out examples through the serialized model and `createLocalClassifier`, end to end. */
function evaluateHoldout(
  serialized: string,
  holdout: { name: string; examples: readonly LabeledExample[] },
): Record<string, Record<string, number>> {
  if (holdout.examples.length === 0) return {};
  const model = parseLocalModel(JSON.parse(serialized) as unknown);
  const result: Record<string, TierMetrics> = {};
  for (const mode of LOCAL_MODES) {
    const classifier = createLocalClassifier({ mode, model });
    const predictions = holdout.examples.map((example) => ({
      predicted: classifier.classifyLocal(example.request).tier,
      label: example.label,
      acceptable: example.acceptable,
      source: example.source,
    }));
    result[mode] = toTierMetrics(predictions);
    if (flags['by-source'] && mode === 'local') {
      for (const entry of toSourceAccuracy(predictions))
        log(
          `    ${entry.source.padEnd(44)} ${(100 * entry.exact).toFixed(0).padStart(4)}% of ${entry.count}`,
        );
    }
  }
  formatModes(`held out, ${holdout.name} (${holdout.examples.length} examples never trained on):`, result);
  return Object.fromEntries(Object.entries(result).map(([mode, metrics]) => [mode, roundMetrics(metrics)]));
}

function roundMetrics(metrics: TierMetrics): Record<string, number> {
  return {
    count: metrics.count,
    exact: Number(metrics.exact.toFixed(4)),
    acceptable: Number(metrics.acceptable.toFixed(4)),
    under: Number(metrics.under.toFixed(4)),
    over: Number(metrics.over.toFixed(4)),
  };
}

function toMetadata(context: {
  files: readonly string[];
  training: readonly LabeledExample[];
  holdout: readonly LabeledExample[];
  report: CrossValidationReport | undefined;
}): Record<string, unknown> {
  return {
    files: context.files.map((file) => file.replace(/^.*\//, '')),
    reviewedLabels: flags.reviewed.map((file) => file.replace(/^.*\//, '')),
    trainingExamples: context.training.length,
    reviewedTrainingExamples: context.training.filter((example) => example.reviewed).length,
    goldTrainingExamples: context.training.filter((example) => example.gold).length,
    heldOutExamples: context.holdout.length,
    config,
    crossValidation:
      context.report === undefined
        ? undefined
        : {
            modes: Object.fromEntries(
              Object.entries(context.report.pooled).map(([mode, metrics]) => [mode, roundMetrics(metrics)]),
            ),
            /** `local` exact/under/over for every penalty tried: the trade-off to pick another operating point from. */
            frontier: context.report.candidates.map(({ policy, metrics }) => ({
              ...policy,
              ...roundMetrics(metrics),
            })),
          },
  };
}

main();
