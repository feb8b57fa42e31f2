import type { Tier } from '../src/shared/tier.js';
import type { TierProbabilities } from '../src/classify/decision.js';
import type { TierLogits } from '../src/classify/learned-classifier.js';
import type { DecisionPolicy } from '../src/classify/local-model.js';
import type { LocalMode } from '../src/classify/local-classifier.js';
import { toBlendInputs, type TierBlend } from '../src/classify/tier-blend.js';
import { toTierProbabilities } from '../src/classify/tier-probabilities.js';
import { crossFitBlend } from './blend-fitting.js';
import { fitTemperature, tuneDecision, type DecisionTuning } from './calibration.js';
import { fitWeights, toLogitsOf, type PreparedData, type TrainingConfig } from './model-fitting.js';
import { scoreModes, toModeProbabilities, type ModePolicies, type ScoredItem } from './mode-evaluation.js';
import type { LabeledExample } from './labeled-example.js';
import { hashId } from './random.js';
import { toGroupFolds } from './source-groups.js';
import type { TierMetrics } from './tier-metrics.js';

export interface CrossValidationOptions {
  folds: number;
  config: TrainingConfig;
  tuning: DecisionTuning;
  heuristicPolicy: DecisionPolicy;
  /** Fit a `TierBlend` of the learned and heuristic probabilities for `local` mode. */
  blend: boolean;
  /**
   * Gold examples the decision policy is tuned on (default: all). Our own written prompts are easier
   * than real ones, so tuning on real prompts only keeps the under-routing limit honest for real traffic.
   */
  tuneOn?: ((example: LabeledExample) => boolean) | undefined;
  /**
   * The group of every prepared example: when given, the folds hold out whole groups (a
   * public source's gold prompts and weak pool together), so the out-of-fold predictions that fit the
   * temperature, blend and decision are those of sources the fold model never saw.
   */
  groups?: readonly string[] | undefined;
  log: (line: string) => void;
}

export interface CrossValidationReport {
  temperature: number;
  decision: DecisionPolicy;
  /** Out-of-fold metrics of every gold example, each predicted by the fold model that never saw it. */
  pooled: Record<LocalMode, TierMetrics>;
  /** Exact accuracy of `local` per fold; the CV mean is their average. */
  foldExact: number[];
  /** `local` out-of-fold metrics for every candidate penalty. */
  candidates: readonly { policy: DecisionPolicy; metrics: TierMetrics }[];
  /** Fitted on every out-of-fold prediction; undefined when blending is off. */
  blend: TierBlend | undefined;
  /** Every gold example with its calibrated out-of-fold probabilities, for error analysis. */
  items: readonly ScoredItem[];
  /** Out-of-fold metrics of the examples the policy was tuned on (`tuneOn`), when that is a subset. */
  tunedSubset: { count: number; metrics: Record<LocalMode, TierMetrics> } | undefined;
}

/** Fold of a gold example: a hash of its id, so the folds do not depend on file order. */
export function toFold(id: string, folds: number, seed: number): number {
  return hashId(`${seed}:${id}`) % folds;
}

/**
 * K-fold over the gold examples: every fold model trains on all weak examples plus the other folds.
 * The temperature, the blend (nested: each fold's blend is fitted on the other folds) and the decision
 * policy are then fitted on the pooled out-of-fold predictions.
 */
export function crossValidate(
  data: PreparedData,
  split: { weak: readonly number[]; gold: readonly number[] },
  options: CrossValidationOptions,
): CrossValidationReport {
  const { folds, config, groups } = options;
  const groupFolds = groups === undefined ? undefined : toGroupFolds(groups, folds);
  const foldOf = (index: number): number =>
    groupFolds === undefined
      ? toFold(data.encoded[index]?.example.id ?? '', folds, config.seed)
      : (groupFolds.get(groups?.[index] ?? '') ?? 0);
  const logits = new Map<number, TierLogits>();
  for (let fold = 0; fold < folds; fold += 1) {
    const train =
      groupFolds === undefined
        ? [...split.weak, ...split.gold.filter((index) => foldOf(index) !== fold)]
        : [...split.weak, ...split.gold].filter((index) => foldOf(index) !== fold);
    const weights = fitWeights(data, train, config);
    for (const index of split.gold)
      if (foldOf(index) === fold) logits.set(index, toLogitsOf(data, index, weights));
    options.log(`  fold ${fold + 1}/${folds} trained on ${train.length} examples`);
  }
  const gold = split.gold.filter((index) => logits.has(index));
  const labels: Tier[] = gold.map((index) => data.encoded[index]?.example.label ?? 'MODERATE');
  const temperature = fitTemperature(
    gold.map((index) => logits.get(index) ?? [0, 0, 0, 0]),
    labels,
  );
  const learned = gold.map((index) => toTierProbabilities(logits.get(index) ?? [0, 0, 0, 0], temperature));
  const blends = options.blend ? fitBlends(data, { gold, learned, foldOf }, folds) : undefined;
  const items: ScoredItem[] = gold.flatMap((index, position) => {
    const encoded = data.encoded[index];
    const probabilities = learned[position];
    if (encoded === undefined || probabilities === undefined) return [];
    const blend = blends?.perFold[foldOf(index)];
    return [{ encoded, probabilities: toModeProbabilities(encoded, probabilities, blend) }];
  });
  const tuneItems =
    options.tuneOn === undefined ? items : items.filter(({ encoded }) => options.tuneOn?.(encoded.example));
  if (tuneItems.length === 0)
    throw new Error('no gold example is left to tune the decision on: every one is excluded from tuning');
  const tuned = tuneDecision(
    tuneItems.map((item) => item.probabilities.local),
    tuneItems.map(({ encoded }) => ({
      label: encoded.example.label,
      acceptable: encoded.example.acceptable,
      source: encoded.example.source,
    })),
    options.tuning,
  );
  const policies: ModePolicies = { heuristic: options.heuristicPolicy, model: tuned.policy };
  const foldByExample = new Map(gold.map((index) => [data.encoded[index]?.example, foldOf(index)]));
  const foldExact = Array.from({ length: folds }, (_, fold) => {
    const inFold = items.filter(({ encoded }) => foldByExample.get(encoded.example) === fold);
    return scoreModes(inFold, policies).local.exact;
  });
  return {
    temperature,
    decision: tuned.policy,
    blend: blends?.final,
    pooled: scoreModes(items, policies),
    foldExact,
    candidates: tuned.candidates,
    items,
    tunedSubset:
      tuneItems.length === items.length
        ? undefined
        : { count: tuneItems.length, metrics: scoreModes(tuneItems, policies) },
  };
}

function fitBlends(
  data: PreparedData,
  scored: {
    gold: readonly number[];
    learned: readonly TierProbabilities[];
    foldOf: (index: number) => number;
  },
  folds: number,
): { perFold: TierBlend[]; final: TierBlend } {
  const examples = scored.gold.map((index, position) => ({
    inputs: toBlendInputs(
      scored.learned[position] ?? UNIFORM,
      data.encoded[index]?.heuristic.probabilities ?? UNIFORM,
    ),
    target: Array.from(data.targets.subarray(index * 4, index * 4 + 4)),
    fold: scored.foldOf(index),
  }));
  return crossFitBlend(examples, folds);
}

const UNIFORM: TierProbabilities = { SIMPLE: 0.25, MODERATE: 0.25, COMPLEX: 0.25, EXPERT: 0.25 };
