import {
  shouldAskLlm,
  toCascadeTier,
  toFallbackTier,
  type CascadeCombination,
  type CascadeGate,
} from '../src/classify/cascade-decision.js';
import type { TierProbabilities } from '../src/classify/decision.js';
import { toTierRank, type Tier } from '../src/shared/tier.js';

/** One prompt as the cascade sees it: the local stage's result and what the LLM would answer. */
export interface CurveItem {
  gold: Tier;
  local: { tier: Tier; probabilities: TierProbabilities; confidence: number };
  /** The LLM's verdict when asked; undefined when its call failed (the cascade then falls back). */
  verdict: Tier | undefined;
}

/** The cascade at one cutoff of its gate. Rates are shares of all items, 0..1. */
export interface CurvePoint {
  /** The gate's cutoff: `threshold` for `gate: confidence`, `min_value` for `gate: value`. */
  threshold: number;
  exact: number;
  under: number;
  over: number;
  /** Share of requests the LLM is asked about (local confidence below the threshold). */
  llmShare: number;
}

/** The cascade's rules as the curve varies them: the gate (its cutoff swept), the combination, the fallback. */
export interface CurveRules {
  gate: CascadeGate['by'];
  combination: CascadeCombination;
  /** `classifier.threshold`: below it a failed LLM call rounds the local tier up. */
  threshold: number;
}

/** The gate `rules` describe, at `cutoff`. */
export function toGateAt(rules: CurveRules, cutoff: number): CascadeGate {
  return rules.gate === 'value' ? { by: 'value', minValue: cutoff } : { by: 'confidence', threshold: cutoff };
}

/** The tier the cascade picks for `item` under `gate`, by the same rules as `createCascadeClassifier`. */
export function toCascadeChoice(item: CurveItem, gate: CascadeGate, rules: CurveRules): Tier {
  if (!shouldAskLlm(item.local, gate, rules.combination.calibration)) return item.local.tier;
  if (item.verdict === undefined) return toFallbackTier(item.local, rules.threshold);
  return toCascadeTier(item.local, item.verdict, rules.combination);
}

/** Exact, under, over and LLM share of the cascade at each cutoff of its gate, every LLM answer asked once. */
export function toCascadeCurve(
  items: readonly CurveItem[],
  cutoffs: readonly number[],
  rules: CurveRules,
): CurvePoint[] {
  const count = Math.max(1, items.length);
  return cutoffs.map((cutoff) => {
    const gate = toGateAt(rules, cutoff);
    let exact = 0;
    let under = 0;
    let over = 0;
    let asked = 0;
    for (const item of items) {
      if (shouldAskLlm(item.local, gate, rules.combination.calibration)) asked += 1;
      const distance = toTierRank(toCascadeChoice(item, gate, rules)) - toTierRank(item.gold);
      if (distance === 0) exact += 1;
      else if (distance < 0) under += 1;
      else over += 1;
    }
    return {
      threshold: cutoff,
      exact: exact / count,
      under: under / count,
      over: over / count,
      llmShare: asked / count,
    };
  });
}

/** Confidence thresholds 0.30, 0.35 ... 1.00, the `gate: confidence` curve's default grid. */
export const DEFAULT_CURVE_THRESHOLDS: readonly number[] = Array.from({ length: 15 }, (_, step) =>
  Number((0.3 + step * 0.05).toFixed(2)),
);

/** Minimum values 1 ... 0, the `gate: value` curve's default grid (fewest LLM calls first). */
export const DEFAULT_CURVE_VALUES: readonly number[] = [
  1, 0.8, 0.7, 0.6, 0.55, 0.5, 0.46, 0.42, 0.38, 0.34, 0.3, 0.25, 0.2, 0.1, 0,
];

const percent = (share: number): string => `${(100 * share).toFixed(1)}%`.padStart(7);

/** The curve as a text table, one cutoff a line. */
export function formatCascadeCurve(title: string, points: readonly CurvePoint[]): string {
  const lines = [title, 'threshold   exact   under    over  LLM share'];
  for (const point of points)
    lines.push(
      `${point.threshold.toFixed(2).padStart(9)} ${percent(point.exact)} ${percent(point.under)} ${percent(point.over)} ${percent(point.llmShare)}`,
    );
  return lines.join('\n');
}
