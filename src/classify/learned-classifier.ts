import type { TierProbabilities } from './decision.js';
import type { LocalModel } from './local-model.js';
import { encodeFeatures, type FeatureSink, type FeatureSource } from './model-features.js';
import { toTierProbabilities } from './tier-probabilities.js';

export type TierLogits = [number, number, number, number];

export interface LearnedClassifier {
  /** Calibrated probabilities (the model's temperature applied). */
  predict(source: FeatureSource): TierProbabilities;
  /** Uncalibrated log-scores, for fitting the temperature. */
  toLogits(source: FeatureSource): TierLogits;
  /** False for an n-gram-only model, which needs no heuristic signals. */
  readonly usesSignals: boolean;
}

export interface LearnedClassifierOptions {
  model: LocalModel;
}

/**
 * Scores a request with the model's weights. The sums live in the closure and are reset per call (calls
 * are synchronous), so scoring allocates nothing per n-gram.
 */
export function createLearnedClassifier({ model }: LearnedClassifierOptions): LearnedClassifier {
  const { weights, layout, bias, temperature } = model;
  /** Running sums of the current request: n-gram rows (scaled at the end) and dense rows, per tier. */
  let text0 = 0;
  let text1 = 0;
  let text2 = 0;
  let text3 = 0;
  const dense = new Float64Array(4);
  const sink: FeatureSink = {
    addText(row) {
      const base = row * 4;
      text0 += weights[base] ?? 0;
      text1 += weights[base + 1] ?? 0;
      text2 += weights[base + 2] ?? 0;
      text3 += weights[base + 3] ?? 0;
    },
    add(row, value) {
      const base = row * 4;
      for (let tier = 0; tier < 4; tier += 1)
        dense[tier] = (dense[tier] ?? 0) + value * (weights[base + tier] ?? 0);
    },
  };
  const toLogits = (source: FeatureSource): TierLogits => {
    text0 = text1 = text2 = text3 = 0;
    dense.fill(0);
    const count = encodeFeatures(source, layout, sink);
    const scale = count > 0 ? 1 / Math.sqrt(count) : 0;
    const texts = [text0, text1, text2, text3];
    const logit = (tier: number): number =>
      (bias[tier] ?? 0) + (texts[tier] ?? 0) * scale + (dense[tier] ?? 0);
    return [logit(0), logit(1), logit(2), logit(3)];
  };
  return {
    predict: (source) => toTierProbabilities(toLogits(source), temperature),
    toLogits,
    usesSignals: model.spec.signals.length > 0,
  };
}
