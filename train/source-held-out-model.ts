import type { LocalModel } from '../src/classify/local-model.js';
import { readLabeledExamples, type LabeledExample } from './labeled-example.js';
import { fitWeights, prepareData, toLocalModel, type TrainingConfig } from './model-fitting.js';
import { applyReviewedLabels, readReviewedLabels } from './reviewed-labels.js';
import type { TrafficRecord } from '../src/classify/traffic-record.js';
import { appendTrafficRows, DEFAULT_TRAFFIC_TRAINING, type TrafficTraining } from './traffic-examples.js';
import { DEFAULT_REVIEWED_FILES, DEFAULT_TRAINING_FILES, toReadablePath } from './training-inputs.js';

/**
 * The default training examples (the shared datasets and data/, with the reviewed labels), as
 * `npm run train` reads them with no arguments. `root` is the project root.
 */
export function readDefaultExamples(root: string): LabeledExample[] {
  let examples = DEFAULT_TRAINING_FILES.flatMap((file) => readLabeledExamples(toReadablePath(file, root)));
  for (const file of DEFAULT_REVIEWED_FILES)
    examples = applyReviewedLabels(examples, readReviewedLabels(toReadablePath(file, root))).examples;
  return examples;
}

/**
 * A model that never saw `excluded` sources, for experiments on unseen sources: fitted on
 * every other example, with the temperature, blend and decision policy of `base` (small global
 * settings the cross-validation of the shipped model fitted). Never shipped.
 */
export function fitWithoutSources(
  examples: readonly LabeledExample[],
  options: {
    excluded: ReadonlySet<string>;
    config: TrainingConfig;
    base: LocalModel;
    /** `classifier.learn` records trained on as extra weak examples (`npm run train -- --from-traffic`). */
    traffic?: readonly TrafficRecord[];
    trafficTraining?: TrafficTraining;
  },
): LocalModel {
  const training = examples.filter((example) => !options.excluded.has(example.source));
  const prepared = prepareData(training, options.config);
  const traffic = appendTrafficRows(
    prepared,
    options.traffic ?? [],
    options.trafficTraining ?? DEFAULT_TRAFFIC_TRAINING,
  );
  const data = traffic.data;
  const weights = fitWeights(
    data,
    [...training.map((_, index) => index), ...traffic.indices],
    options.config,
  );
  return toLocalModel(data, weights, {
    temperature: options.base.temperature,
    decision: options.base.decision,
    blend: options.base.blend,
    metadata: { excludedSources: [...options.excluded].sort() },
  });
}
