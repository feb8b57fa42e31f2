import { BLEND_INPUTS, toBlendLogits, type TierBlend } from '../src/classify/tier-blend.js';
import { toProbabilityArray, toTierProbabilities } from '../src/classify/tier-probabilities.js';

export interface BlendFitOptions {
  /** L2 strength on the weights (not the bias). @default 1e-3 */
  l2: number;
  /** Full-batch gradient steps. @default 3000 */
  iterations: number;
  /** @default 0.05 */
  learningRate: number;
}

export const DEFAULT_BLEND_FIT: BlendFitOptions = Object.freeze({
  l2: 1e-3,
  iterations: 3000,
  learningRate: 0.05,
});

/**
 * Fits a `TierBlend` by full-batch gradient descent on the cross-entropy against soft targets (four
 * shares per example). Deterministic; 900 examples x 3000 steps take well under a second.
 */
export function fitBlend(
  inputs: readonly (readonly number[])[],
  targets: readonly (readonly number[])[],
  options: BlendFitOptions = DEFAULT_BLEND_FIT,
): TierBlend {
  const weights = new Array<number>(BLEND_INPUTS * 4).fill(0);
  const bias = [0, 0, 0, 0];
  const count = Math.max(1, inputs.length);
  for (let iteration = 0; iteration < options.iterations; iteration += 1) {
    const weightGradient = weights.map((weight) => options.l2 * weight);
    const biasGradient = [0, 0, 0, 0];
    inputs.forEach((row, index) => {
      const shares = toProbabilityArray(toTierProbabilities(toBlendLogits({ weights, bias }, row)));
      for (let tier = 0; tier < 4; tier += 1) {
        const error = ((shares[tier] ?? 0) - (targets[index]?.[tier] ?? 0)) / count;
        biasGradient[tier] = (biasGradient[tier] ?? 0) + error;
        row.forEach((value, input) => {
          weightGradient[input * 4 + tier] = (weightGradient[input * 4 + tier] ?? 0) + error * value;
        });
      }
    });
    weights.forEach((weight, cell) => {
      weights[cell] = weight - options.learningRate * (weightGradient[cell] ?? 0);
    });
    biasGradient.forEach((gradient, tier) => {
      bias[tier] = (bias[tier] ?? 0) - options.learningRate * gradient;
    });
  }
  return { weights, bias };
}

export interface BlendExample {
  inputs: readonly number[];
  target: readonly number[];
  fold: number;
}

/**
 * One blend per fold, each fitted on the other folds' examples (so the blended out-of-fold predictions
 * stay honest), and the final blend fitted on all of them.
 */
export function crossFitBlend(
  examples: readonly BlendExample[],
  folds: number,
  options: BlendFitOptions = DEFAULT_BLEND_FIT,
): { perFold: TierBlend[]; final: TierBlend } {
  const fitOn = (keep: (example: BlendExample) => boolean): TierBlend => {
    const chosen = examples.filter(keep);
    return fitBlend(
      chosen.map((example) => example.inputs),
      chosen.map((example) => example.target),
      options,
    );
  };
  const perFold = Array.from({ length: folds }, (_, fold) => fitOn((example) => example.fold !== fold));
  return { perFold, final: fitOn(() => true) };
}
