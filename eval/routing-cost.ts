import type { RoutingTable } from '../src/config/routing-table-schema.js';
import { TIERS, type Tier } from '../src/shared/tier.js';
import { toRate } from './scored-case.js';

export type TierCostWeights = Record<Tier, number>;

/** Each tier's cost per request: the `cost_weight` of the first deployment of its group. */
export function toTierCostWeights(table: RoutingTable): TierCostWeights {
  const weightOf = (tier: Tier): number => {
    const id = table.tiers[tier].group[0];
    return table.deployments.find((deployment) => deployment.id === id)?.cost_weight ?? 1;
  };
  const weights: TierCostWeights = { SIMPLE: 0, MODERATE: 0, COMPLEX: 0, EXPERT: 0 };
  for (const tier of TIERS) weights[tier] = weightOf(tier);
  return weights;
}

/**
 * Compute of routing each request to `tiers`, as a fraction of sending every request to EXPERT
 * (1 = no saving). Treats requests as equally long; 0 for no requests or a free EXPERT tier.
 */
export function toRelativeCost(tiers: readonly Tier[], weights: TierCostWeights): number {
  const spent = tiers.reduce((sum, tier) => sum + weights[tier], 0);
  return toRate(spent, tiers.length * weights.EXPERT);
}
