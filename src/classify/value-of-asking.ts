import { TIERS, type Tier } from '../shared/tier.js';
import type { TierProbabilities } from './decision.js';
import { chooseTier } from './choose-tier.js';
import { toVerdictPosterior, type VerdictCalibration } from './combine-with-verdict.js';
import { toProbabilityArray } from './tier-probabilities.js';

/** Expected misrouting cost of routing to `tier`: k per tier above gold, k * (1 + underPenalty) below. */
export function toExpectedCost(probabilities: TierProbabilities, tier: Tier, underPenalty: number): number {
  const rank = TIERS.indexOf(tier);
  return toProbabilityArray(probabilities).reduce(
    (sum, share, gold) => sum + share * (gold > rank ? (1 + underPenalty) * (gold - rank) : rank - gold),
    0,
  );
}

/**
 * What asking the LLM is expected to save, in tiers of misrouting cost: the
 * expected cost of the local tier minus the expected cost after the verdict, averaged over the
 * verdicts the confusion matrix predicts. Both are taken under the calibrated local belief
 * p_local^a (the verdict's posterior with a flat verdict likelihood), so 0 means the LLM cannot change
 * the decision and larger values mean a likelier, costlier mistake it can fix.
 */
export function toValueOfAsking(
  local: { tier: Tier; probabilities: TierProbabilities },
  calibration: VerdictCalibration,
): number {
  const belief = toVerdictPosterior(local.probabilities, 'MODERATE', {
    ...calibration,
    confusion: TIERS.map(() => [1, 1, 1, 1]),
  });
  const beliefShares = toProbabilityArray(belief);
  const before = toExpectedCost(belief, local.tier, calibration.underPenalty);
  let after = 0;
  for (const verdict of TIERS) {
    const column = TIERS.indexOf(verdict);
    const chance = beliefShares.reduce(
      (sum, share, gold) => sum + share * (calibration.confusion[gold]?.[column] ?? 0),
      0,
    );
    if (chance <= 0) continue;
    const posterior = toVerdictPosterior(belief, verdict, { ...calibration, localWeight: 1 });
    const tier = chooseTier(posterior, { underPenalty: calibration.underPenalty });
    after += chance * toExpectedCost(posterior, tier, calibration.underPenalty);
  }
  return Math.max(0, before - after);
}
