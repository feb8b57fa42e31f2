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

/** Largest int16, the unit count of the largest absolute weight after quantization. */
const INT16_MAX = 32767;

/**
 * The weights as int16 multiples of one step: half the memory of float32, so the random row reads of
 * hashed n-grams hit the CPU cache twice as often (2 MB for 2^18 rows). A model read from its file is
 * already quantized this way (`model-codec.ts`), so nothing changes for it.
 */
function toQuantizedWeights(weights: Float32Array): { units: Int16Array; step: number } {
  let maxAbs = 0;
  for (let index = 0; index < weights.length; index += 1)
    maxAbs = Math.max(maxAbs, Math.abs(weights[index] ?? 0));
  const step = maxAbs > 0 ? maxAbs / INT16_MAX : 1;
  // indexed loops: `for...of` and Int16Array.from with a map callback took ~230 ms for the 1M
  // weights each time a classifier was built (start, table reload)
  const units = new Int16Array(weights.length);
  for (let index = 0; index < weights.length; index += 1)
    units[index] = Math.round((weights[index] ?? 0) / step);
  return { units, step };
}

/**
 * Scores a request with the model's weights. The sums live in the closure and are reset per call (calls
 * are synchronous), so scoring allocates nothing per n-gram.
 */
export function createLearnedClassifier({ model }: LearnedClassifierOptions): LearnedClassifier {
  const { layout, bias, temperature } = model;
  const { units: weights, step } = toQuantizedWeights(model.weights);
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
        dense[tier] = (dense[tier] ?? 0) + value * step * (weights[base + tier] ?? 0);
    },
  };
  const toLogits = (source: FeatureSource): TierLogits => {
    text0 = text1 = text2 = text3 = 0;
    dense.fill(0);
    const count = encodeFeatures(source, layout, sink);
    const scale = count > 0 ? step / Math.sqrt(count) : 0;
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
