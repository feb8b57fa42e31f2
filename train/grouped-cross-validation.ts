import type { TierLogits } from '../src/classify/learned-classifier.js';
import { toFold } from './cross-validation.js';
import { fitWeights, toLogitsOf, type PreparedData, type TrainingConfig } from './model-fitting.js';
import type { SoftmaxWeights } from './softmax-trainer.js';
import { toGroupFolds } from './source-groups.js';

/** Which prepared examples train, which are scored out of group, and which gold ones tune the decision. */
export interface GroupedPools {
  /** Every example a model may train on (weak, reviewed, written, gold outside the held-out share). */
  train: readonly number[];
  /** Examples predicted by the model that never saw their group (dev's gold, our eval and written prompts). */
  scored: readonly number[];
  /** Gold examples the calibration and decision are fitted on (dev's share that training may see). */
  tuning: readonly number[];
  /** The group of every prepared example, by index. */
  groups: readonly string[];
}

export interface GroupedFitOptions {
  config: TrainingConfig;
  /** Grouped folds; 0 = leave one group out. */
  folds: number;
  /** Folds of today's random k-fold (by a hash of the id), whose predictions calibrate the "today" rule. */
  randomFolds: number;
  /** Returns the stored logits of `key`, or computes and stores them. */
  cached: (key: string, compute: () => Map<number, TierLogits>) => Map<number, TierLogits>;
  log: (line: string) => void;
  /** Fits one model on `train` (experiments); `fitWeights` when absent. */
  fit?: (data: PreparedData, train: readonly number[], config: TrainingConfig) => SoftmaxWeights;
}

export interface GroupedLogits {
  /** Each scored example's logits from the model trained without its whole group. */
  outOfGroup: Map<number, TierLogits>;
  /** Each tuning example's logits from today's random k-fold (its source's other prompts trained). */
  randomFold: Map<number, TierLogits>;
}

/**
 * Grouped cross-validation: for each fold of groups, a model trained on every example of the
 * other groups (a held-out public source loses its gold prompts and its weak pool alike) predicts the
 * fold's scored examples. Also today's random k-fold over the tuning gold, whose predictions the
 * shipped pipeline calibrates on, so both calibrations can be scored on the same unseen sources.
 */
export function toGroupedLogits(
  data: PreparedData,
  pools: GroupedPools,
  options: GroupedFitOptions,
): GroupedLogits {
  const foldOfGroup = toGroupFolds(pools.groups, options.folds);
  const groupFold = (index: number): number => foldOfGroup.get(pools.groups[index] ?? '') ?? -1;
  const folds = new Set(foldOfGroup.values()).size;
  const fit = options.fit ?? fitWeights;
  const outOfGroup = new Map<number, TierLogits>();
  for (let fold = 0; fold < folds; fold += 1) {
    const names = [...foldOfGroup.entries()].filter(([, value]) => value === fold).map(([name]) => name);
    const fitted = options.cached(`group:${names.join('+')}`, () => {
      const train = pools.train.filter((index) => groupFold(index) !== fold);
      const weights = fit(data, train, options.config);
      options.log(`  seed ${options.config.seed}: without ${names.join(', ')} (${train.length} examples)`);
      return toLogitsFor(
        data,
        pools.scored.filter((index) => groupFold(index) === fold),
        weights,
      );
    });
    for (const [index, logits] of fitted) outOfGroup.set(index, logits);
  }
  const randomFold = new Map<number, TierLogits>();
  const tuning = new Set(pools.tuning);
  const foldOfId = (index: number): number =>
    toFold(data.encoded[index]?.example.id ?? '', options.randomFolds, options.config.seed);
  for (let fold = 0; fold < options.randomFolds; fold += 1) {
    const fitted = options.cached(`random:${fold}/${options.randomFolds}`, () => {
      const train = pools.train.filter((index) => !tuning.has(index) || foldOfId(index) !== fold);
      const weights = fit(data, train, options.config);
      options.log(`  seed ${options.config.seed}: random fold ${fold + 1}/${options.randomFolds}`);
      return toLogitsFor(
        data,
        pools.tuning.filter((index) => foldOfId(index) === fold),
        weights,
      );
    });
    for (const [index, logits] of fitted) randomFold.set(index, logits);
  }
  return { outOfGroup, randomFold };
}

function toLogitsFor(
  data: PreparedData,
  indices: readonly number[],
  weights: SoftmaxWeights,
): Map<number, TierLogits> {
  return new Map(indices.map((index) => [index, toLogitsOf(data, index, weights)]));
}
