import { toCascadeTier, type CascadeCombination } from '../src/classify/cascade-decision.js';
import type { TierProbabilities } from '../src/classify/decision.js';
import { toNextTier, toTierRank, type Tier } from '../src/shared/tier.js';

/** One prompt as the cascade sees it: the local stage's result and what the LLM would answer. */
export interface CurveItem {
  gold: Tier;
  local: { tier: Tier; probabilities: TierProbabilities; confidence: number };
  /** The LLM's verdict when asked; undefined when its call failed (the cascade then falls back). */
  verdict: Tier | undefined;
}

/** The cascade at one threshold. Rates are shares of all items, 0..1. */
export interface CurvePoint {
  threshold: number;
  exact: number;
  under: number;
  over: number;
  /** Share of requests the LLM is asked about (local confidence below the threshold). */
  llmShare: number;
}

/** The tier the cascade picks for `item` at `threshold`, by the same rules as `createCascadeClassifier`. */
export function toCascadeChoice(item: CurveItem, threshold: number, combination: CascadeCombination): Tier {
  if (item.local.confidence >= threshold) return item.local.tier;
  if (item.verdict === undefined) return toNextTier(item.local.tier);
  return toCascadeTier(item.local, item.verdict, combination);
}

/** Exact, under, over and LLM share of the cascade at each threshold, every LLM answer asked once. */
export function toCascadeCurve(
  items: readonly CurveItem[],
  thresholds: readonly number[],
  combination: CascadeCombination,
): CurvePoint[] {
  const count = Math.max(1, items.length);
  return thresholds.map((threshold) => {
    let exact = 0;
    let under = 0;
    let over = 0;
    let asked = 0;
    for (const item of items) {
      if (item.local.confidence < threshold) asked += 1;
      const distance = toTierRank(toCascadeChoice(item, threshold, combination)) - toTierRank(item.gold);
      if (distance === 0) exact += 1;
      else if (distance < 0) under += 1;
      else over += 1;
    }
    return {
      threshold,
      exact: exact / count,
      under: under / count,
      over: over / count,
      llmShare: asked / count,
    };
  });
}

/** Thresholds 0.30, 0.35 ... 1.00, the curve's default grid. */
export const DEFAULT_CURVE_THRESHOLDS: readonly number[] = Array.from({ length: 15 }, (_, step) =>
  Number((0.3 + step * 0.05).toFixed(2)),
);

const percent = (share: number): string => `${(100 * share).toFixed(1)}%`.padStart(7);

/** The curve as a text table, one threshold a line. */
export function formatCascadeCurve(title: string, points: readonly CurvePoint[]): string {
  const lines = [title, 'threshold   exact   under    over  LLM share'];
  for (const point of points)
    lines.push(
      `${point.threshold.toFixed(2).padStart(9)} ${percent(point.exact)} ${percent(point.under)} ${percent(point.over)} ${percent(point.llmShare)}`,
    );
  return lines.join('\n');
}
