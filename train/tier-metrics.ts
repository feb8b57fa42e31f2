import { TIERS, toTierRank, type Tier } from '../src/shared/tier.js';

export interface ScoredPrediction {
  predicted: Tier;
  label: Tier;
  acceptable: readonly Tier[];
  source: string;
}

/** Shares of all predictions, 0..1. */
export interface TierMetrics {
  count: number;
  /** predicted == label. */
  exact: number;
  /** predicted is one of the tiers an annotator gave. */
  acceptable: number;
  /** predicted below the gold label: the quality risk. */
  under: number;
  /** predicted above the gold label: the cost risk. */
  over: number;
  /** confusion[label rank][predicted rank] = count. */
  confusion: number[][];
}

export function toTierMetrics(predictions: readonly ScoredPrediction[]): TierMetrics {
  const confusion = TIERS.map(() => TIERS.map(() => 0));
  let exact = 0;
  let acceptable = 0;
  let under = 0;
  let over = 0;
  for (const { predicted, label, acceptable: allowed } of predictions) {
    const difference = toTierRank(predicted) - toTierRank(label);
    if (difference === 0) exact += 1;
    if (difference < 0) under += 1;
    if (difference > 0) over += 1;
    if (allowed.includes(predicted)) acceptable += 1;
    const row = confusion[toTierRank(label)];
    if (row !== undefined) row[toTierRank(predicted)] = (row[toTierRank(predicted)] ?? 0) + 1;
  }
  const count = Math.max(1, predictions.length);
  return {
    count: predictions.length,
    exact: exact / count,
    acceptable: acceptable / count,
    under: under / count,
    over: over / count,
    confusion,
  };
}

/** Exact accuracy per source, worst first, for spotting which task types the classifier misses. */
export function toSourceAccuracy(
  predictions: readonly ScoredPrediction[],
): { source: string; exact: number; count: number }[] {
  const bySource = new Map<string, { hits: number; count: number }>();
  for (const { predicted, label, source } of predictions) {
    const entry = bySource.get(source) ?? { hits: 0, count: 0 };
    entry.count += 1;
    if (predicted === label) entry.hits += 1;
    bySource.set(source, entry);
  }
  return [...bySource.entries()]
    .map(([source, { hits, count }]) => ({ source, exact: hits / count, count }))
    .sort((a, b) => a.exact - b.exact);
}

const percent = (value: number): string => `${(100 * value).toFixed(1)}%`;

export function formatTierMetrics(metrics: TierMetrics): string {
  return `n=${metrics.count} exact=${percent(metrics.exact)} acceptable=${percent(metrics.acceptable)} under=${percent(metrics.under)} over=${percent(metrics.over)}`;
}
