import { createLocalClassifier } from '../src/classify/local-classifier.js';
import { parseLocalModel } from '../src/classify/local-model.js';
import type { LabeledExample } from './labeled-example.js';
import { LOCAL_MODES } from './mode-evaluation.js';
import { toTierMetrics, type ScoredPrediction, type TierMetrics } from './tier-metrics.js';

export interface HoldoutSet {
  name: string;
  examples: readonly LabeledExample[];
}

/** Metrics per local mode of a held-out set, scored through the serialized model, end to end. */
export interface HoldoutResult {
  modes: Record<string, TierMetrics>;
  /** `local` mode's predictions, for a per-source breakdown. */
  localPredictions: readonly ScoredPrediction[];
}

/** Scores `holdout` through `serialized` (the model file's JSON) and `createLocalClassifier`, like the service. */
export function evaluateHoldout(serialized: string, holdout: HoldoutSet): HoldoutResult {
  const model = parseLocalModel(JSON.parse(serialized) as unknown);
  const modes: Record<string, TierMetrics> = {};
  let localPredictions: ScoredPrediction[] = [];
  for (const mode of LOCAL_MODES) {
    const classifier = createLocalClassifier({ mode, model });
    const predictions = holdout.examples.map((example) => ({
      predicted: classifier.classifyLocal(example.request).tier,
      label: example.label,
      acceptable: example.acceptable,
      source: example.source,
    }));
    modes[mode] = toTierMetrics(predictions);
    if (mode === 'local') localPredictions = predictions;
  }
  return { modes, localPredictions };
}

/** The metrics a model file records: count and rates rounded to 4 decimals, no confusion matrix. */
export function roundMetrics(metrics: TierMetrics): Record<string, number> {
  return {
    count: metrics.count,
    exact: Number(metrics.exact.toFixed(4)),
    acceptable: Number(metrics.acceptable.toFixed(4)),
    under: Number(metrics.under.toFixed(4)),
    over: Number(metrics.over.toFixed(4)),
  };
}
