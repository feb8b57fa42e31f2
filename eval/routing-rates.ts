import { toTierRank, type Tier } from '../src/shared/tier.js';
import { toRate, type AcceptablePair, type TierPair } from './scored-case.js';

export interface RoutingRates {
  /** Cases counted. */
  n: number;
  /** Share predicted below the gold tier: the quality risk. 0..1. */
  under: number;
  /** Share predicted above the gold tier: the cost. 0..1. */
  over: number;
}

/** Exact accuracy: predicted equals gold. 0..1, 0 for no cases. */
export function toAccuracy(pairs: readonly TierPair[]): number {
  return toRate(pairs.filter((pair) => pair.predicted === pair.gold).length, pairs.length);
}

/** Predicted tier is gold or one of the acceptable tiers. 0..1, 0 for no cases. */
export function toAcceptableAccuracy(pairs: readonly AcceptablePair[]): number {
  const fine = pairs.filter(
    (pair) => pair.predicted === pair.gold || pair.acceptable.includes(pair.predicted),
  );
  return toRate(fine.length, pairs.length);
}

/** Signed distance in tiers: negative = under-routed, positive = over-routed. */
export function toTierDistance(pair: TierPair): number {
  return toTierRank(pair.predicted) - toTierRank(pair.gold);
}

/** Under- and over-routing against the gold label (acceptable tiers do not excuse either). */
export function toRoutingRates(pairs: readonly TierPair[]): RoutingRates {
  const distances = pairs.map(toTierDistance);
  return {
    n: pairs.length,
    under: toRate(distances.filter((distance) => distance < 0).length, pairs.length),
    over: toRate(distances.filter((distance) => distance > 0).length, pairs.length),
  };
}

/** Routing rates among the cases of each gold tier; an empty tier has n 0 and rates 0. */
export function toRoutingRatesByTier(pairs: readonly TierPair[]): Record<Tier, RoutingRates> {
  const of = (tier: Tier): RoutingRates => toRoutingRates(pairs.filter((pair) => pair.gold === tier));
  return { SIMPLE: of('SIMPLE'), MODERATE: of('MODERATE'), COMPLEX: of('COMPLEX'), EXPERT: of('EXPERT') };
}
