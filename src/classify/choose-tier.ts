import { TIERS, toTierRank, type Tier } from '../shared/tier.js';
import type { TierProbabilities } from './decision.js';
import type { DecisionPolicy } from './local-model.js';
import { toProbabilityArray } from './tier-probabilities.js';

/**
 * The tier with the lowest expected cost, where the cost grows with the distance to the gold tier in
 * both directions: routing k tiers above it costs k (compute: every tier up is a bigger model), routing
 * k tiers below it costs k * (1 + underPenalty) (answer quality). Linear costs make the minimizer a
 * quantile: the lowest tier whose cumulative probability reaches (1 + u) / (2 + u), so a request that
 * is most likely SIMPLE never jumps to EXPERT because the rest of the mass is spread upwards.
 * 0 picks the median tier. Ties go up (the rubric's "when torn, the higher tier").
 */
export function chooseTier(probabilities: TierProbabilities, policy: DecisionPolicy): Tier {
  const shares = toProbabilityArray(probabilities);
  const underUnit = 1 + policy.underPenalty;
  let best: Tier = 'SIMPLE';
  let bestCost = Number.POSITIVE_INFINITY;
  for (const [rank, tier] of TIERS.entries()) {
    let cost = 0;
    for (let gold = 0; gold < 4; gold += 1) {
      const share = shares[gold] ?? 0;
      cost += gold > rank ? share * underUnit * (gold - rank) : share * (rank - gold);
    }
    if (cost <= bestCost + 1e-12) {
      best = tier;
      bestCost = cost;
    }
  }
  return best;
}

export interface TierBounds {
  floor?: Tier | undefined;
  ceiling?: Tier | undefined;
}

/**
 * Moves the probability of tiers below `floor` onto the floor and of tiers above `ceiling` onto the
 * ceiling, so a high-precision heuristic (a Lean proof, a bare greeting) shapes the distribution.
 */
export function applyTierBounds(probabilities: TierProbabilities, bounds: TierBounds): TierProbabilities {
  const low = bounds.floor === undefined ? 0 : toTierRank(bounds.floor);
  const high = bounds.ceiling === undefined ? 3 : Math.max(low, toTierRank(bounds.ceiling));
  if (low === 0 && high === 3) return probabilities;
  const shares = [0, 0, 0, 0];
  toProbabilityArray(probabilities).forEach((share, rank) => {
    const target = Math.min(high, Math.max(low, rank));
    shares[target] = (shares[target] ?? 0) + share;
  });
  return {
    SIMPLE: shares[0] ?? 0,
    MODERATE: shares[1] ?? 0,
    COMPLEX: shares[2] ?? 0,
    EXPERT: shares[3] ?? 0,
  };
}
