import { TIERS, toTierRank, type Tier } from '../shared/tier.js';
import type { TierProbabilities } from './decision.js';
import { chooseTier } from './choose-tier.js';
import { toProbabilityArray } from './tier-probabilities.js';

/**
 * How far the cascade trusts the LLM's verdict against the local probabilities:
 * p(t | v) ∝ p_local(t)^localWeight · confusion[t][v], then the tier of least expected cost with
 * `underPenalty` (see `chooseTier`).
 */
export interface VerdictCalibration {
  /** Rows: gold tier SIMPLE..EXPERT; columns: the LLM's verdict; each row sums to 1. */
  confusion: readonly (readonly number[])[];
  /** Exponent on the local probabilities (0 = ignore them; 1 = take them as calibrated). */
  localWeight: number;
  /** Extra cost of routing one tier below the gold tier (as `DecisionPolicy.underPenalty`). */
  underPenalty: number;
}

/** Local shares below this are lifted to it, so a heuristic bound never makes a tier impossible. */
const MIN_LOCAL_SHARE = 1e-3;

/**
 * A confusion matrix for an LLM that is right with probability `accuracy` and otherwise one tier off:
 * half up, half down, all of it to the one neighbour of SIMPLE and of EXPERT.
 */
export function toNeighbourConfusion(accuracy: number): number[][] {
  return TIERS.map((_, gold) =>
    TIERS.map((__, verdict) => {
      if (verdict === gold) return accuracy;
      if (Math.abs(verdict - gold) !== 1) return 0;
      const edge = gold === 0 || gold === TIERS.length - 1;
      return edge ? 1 - accuracy : (1 - accuracy) / 2;
    }),
  );
}

/** Smallest likelihood of a verdict given a tier, so a verdict two tiers off is unlikely, not impossible. */
const MIN_LIKELIHOOD = 1e-3;

/** The posterior over the gold tier given the local probabilities and the LLM's verdict. */
export function toVerdictPosterior(
  local: TierProbabilities,
  verdict: Tier,
  calibration: VerdictCalibration,
): TierProbabilities {
  const column = toTierRank(verdict);
  const weights = toProbabilityArray(local).map((share, gold) => {
    const likelihood = Math.max(MIN_LIKELIHOOD, calibration.confusion[gold]?.[column] ?? 0);
    return Math.max(MIN_LOCAL_SHARE, share) ** calibration.localWeight * likelihood;
  });
  const total = weights.reduce((sum, value) => sum + value, 0);
  const share = (rank: number): number => (weights[rank] ?? 0) / total;
  return { SIMPLE: share(0), MODERATE: share(1), COMPLEX: share(2), EXPERT: share(3) };
}

/** The tier the cascade routes to when the LLM answered `verdict`: least expected cost under the posterior. */
export function decideWithVerdict(
  local: TierProbabilities,
  verdict: Tier,
  calibration: VerdictCalibration,
): { tier: Tier; posterior: TierProbabilities } {
  const posterior = toVerdictPosterior(local, verdict, calibration);
  return { tier: chooseTier(posterior, { underPenalty: calibration.underPenalty }), posterior };
}
