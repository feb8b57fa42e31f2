import { TIERS, type Tier } from '../shared/tier.js';
import type { TierProbabilities } from './decision.js';

/** Softmax of four log-scores (SIMPLE..EXPERT) divided by `temperature`; the result sums to 1. */
export function toTierProbabilities(logits: ArrayLike<number>, temperature = 1): TierProbabilities {
  const scaled = [0, 1, 2, 3].map((rank) => (logits[rank] ?? 0) / temperature);
  const max = Math.max(...scaled);
  const exps = scaled.map((value) => Math.exp(value - max));
  const total = exps.reduce((sum, value) => sum + value, 0);
  return {
    SIMPLE: (exps[0] ?? 0) / total,
    MODERATE: (exps[1] ?? 0) / total,
    COMPLEX: (exps[2] ?? 0) / total,
    EXPERT: (exps[3] ?? 0) / total,
  };
}

/** The tier with the highest probability; ties go to the higher tier (the rubric's "when torn"). */
export function toTopTier(probabilities: TierProbabilities): Tier {
  let best: Tier = 'SIMPLE';
  for (const tier of TIERS) if (probabilities[tier] >= probabilities[best]) best = tier;
  return best;
}

/** Probabilities as an array indexed by tier rank. */
export function toProbabilityArray(probabilities: TierProbabilities): [number, number, number, number] {
  return [probabilities.SIMPLE, probabilities.MODERATE, probabilities.COMPLEX, probabilities.EXPERT];
}
