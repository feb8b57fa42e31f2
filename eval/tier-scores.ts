import { TIERS, type Tier } from '../src/shared/tier.js';
import { toGoldCount, toPredictedCount, type ConfusionMatrix } from './confusion-matrix.js';
import { toRate } from './scored-case.js';

export interface TierScore {
  /** Cases with this gold tier. */
  support: number;
  /** Cases predicted as this tier. */
  predicted: number;
  /** Fractions 0..1; 0 when the denominator is empty (nothing predicted, or no gold case). */
  precision: number;
  recall: number;
  f1: number;
}

export function toTierScore(matrix: ConfusionMatrix, tier: Tier): TierScore {
  const support = toGoldCount(matrix, tier);
  const predicted = toPredictedCount(matrix, tier);
  const hits = matrix[tier][tier];
  const precision = toRate(hits, predicted);
  const recall = toRate(hits, support);
  const f1 = toRate(2 * precision * recall, precision + recall);
  return { support, predicted, precision, recall, f1 };
}

export function toTierScores(matrix: ConfusionMatrix): Record<Tier, TierScore> {
  return {
    SIMPLE: toTierScore(matrix, 'SIMPLE'),
    MODERATE: toTierScore(matrix, 'MODERATE'),
    COMPLEX: toTierScore(matrix, 'COMPLEX'),
    EXPERT: toTierScore(matrix, 'EXPERT'),
  };
}

/**
 * Unweighted mean F1 over the tiers that occur as gold or as prediction (scikit-learn's labels
 * default): a tier absent from both says nothing about the classifier and is left out.
 */
export function toMacroF1(scores: Readonly<Record<Tier, TierScore>>): number {
  const present = TIERS.filter((tier) => scores[tier].support > 0 || scores[tier].predicted > 0);
  return toRate(
    present.reduce((sum, tier) => sum + scores[tier].f1, 0),
    present.length,
  );
}
