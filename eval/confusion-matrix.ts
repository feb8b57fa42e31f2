import { TIERS, type Tier } from '../src/shared/tier.js';
import type { TierPair } from './scored-case.js';

/** Counts by gold tier, then predicted tier: `matrix[gold][predicted]`. */
export type ConfusionMatrix = Record<Tier, Record<Tier, number>>;

function toZeroRow(): Record<Tier, number> {
  return { SIMPLE: 0, MODERATE: 0, COMPLEX: 0, EXPERT: 0 };
}

export function toConfusionMatrix(pairs: readonly TierPair[]): ConfusionMatrix {
  const matrix: ConfusionMatrix = {
    SIMPLE: toZeroRow(),
    MODERATE: toZeroRow(),
    COMPLEX: toZeroRow(),
    EXPERT: toZeroRow(),
  };
  for (const { gold, predicted } of pairs) matrix[gold][predicted] += 1;
  return matrix;
}

/** Cases whose gold tier is `tier` (a row sum). */
export function toGoldCount(matrix: ConfusionMatrix, tier: Tier): number {
  return TIERS.reduce((sum, predicted) => sum + matrix[tier][predicted], 0);
}

/** Cases predicted as `tier` (a column sum). */
export function toPredictedCount(matrix: ConfusionMatrix, tier: Tier): number {
  return TIERS.reduce((sum, gold) => sum + matrix[gold][tier], 0);
}
