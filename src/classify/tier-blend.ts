import type { TierProbabilities } from './decision.js';
import { toProbabilityArray, toTierProbabilities } from './tier-probabilities.js';

/**
 * A small multinomial logistic regression over the log-probabilities of the learned model and of the
 * heuristic scores (8 inputs -> 4 tiers), fitted on out-of-fold gold predictions. The learned model is
 * trained mostly on weak labels and the heuristic table is hand-set; the blend re-weighs both against
 * the gold labels, which the cross-validation shows neither does alone.
 */
export interface TierBlend {
  /** 8 x 4, row-major: rows are learned SIMPLE..EXPERT, then heuristic SIMPLE..EXPERT. */
  weights: readonly number[];
  bias: readonly number[];
}

export const BLEND_INPUTS = 8;

/** Probabilities below this are clipped before the logarithm, so one near-zero share cannot dominate. */
const MIN_SHARE = 1e-4;

/** The blend's inputs: clipped log-probabilities of both sources. */
export function toBlendInputs(learned: TierProbabilities, heuristic: TierProbabilities): number[] {
  return [...toProbabilityArray(learned), ...toProbabilityArray(heuristic)].map((share) =>
    Math.log(Math.max(MIN_SHARE, share)),
  );
}

/** Logits of the blend for precomputed inputs. */
export function toBlendLogits(blend: TierBlend, inputs: readonly number[]): number[] {
  const logits = [0, 1, 2, 3].map((tier) => blend.bias[tier] ?? 0);
  inputs.forEach((value, row) => {
    for (let tier = 0; tier < 4; tier += 1)
      logits[tier] = (logits[tier] ?? 0) + value * (blend.weights[row * 4 + tier] ?? 0);
  });
  return logits;
}

export function applyBlend(
  blend: TierBlend,
  sources: { learned: TierProbabilities; heuristic: TierProbabilities },
): TierProbabilities {
  return toTierProbabilities(toBlendLogits(blend, toBlendInputs(sources.learned, sources.heuristic)));
}
