import type { LocalModel } from '../src/classify/local-model.js';
import type { LabeledExample } from './labeled-example.js';
import { fitWeights, prepareData, toLocalModel, type TrainingConfig } from './model-fitting.js';

/** A model fitted on every example, with no calibration (temperature 1) and the median decision. */
export function trainToyModel(examples: readonly LabeledExample[], config: TrainingConfig): LocalModel {
  const data = prepareData(examples, config);
  const weights = fitWeights(
    data,
    examples.map((_, index) => index),
    config,
  );
  return toLocalModel(data, weights, { temperature: 1, decision: { underPenalty: 0 }, metadata: {} });
}
