import type { Tier } from '../src/shared/tier.js';
import type { TierProbabilities } from '../src/classify/decision.js';
import { chooseTier } from '../src/classify/choose-tier.js';
import type { TierLogits } from '../src/classify/learned-classifier.js';
import type { DecisionPolicy } from '../src/classify/local-model.js';
import { toTierProbabilities } from '../src/classify/tier-probabilities.js';
import { toTierMetrics, type ScoredPrediction, type TierMetrics } from './tier-metrics.js';

/** Mean negative log-likelihood of the gold tiers under softmax(logits / temperature). */
export function toNegativeLogLikelihood(
  logits: readonly TierLogits[],
  labels: readonly Tier[],
  temperature: number,
): number {
  let total = 0;
  logits.forEach((row, index) => {
    const label = labels[index];
    if (label === undefined) return;
    total -= Math.log(Math.max(1e-12, toTierProbabilities(row, temperature)[label]));
  });
  return total / Math.max(1, logits.length);
}

/** Temperature in [0.25, 4] minimizing the held-out NLL, by golden-section search on its logarithm. */
export function fitTemperature(logits: readonly TierLogits[], labels: readonly Tier[]): number {
  const loss = (logTemperature: number): number =>
    toNegativeLogLikelihood(logits, labels, Math.exp(logTemperature));
  const ratio = (Math.sqrt(5) - 1) / 2;
  let low = Math.log(0.25);
  let high = Math.log(4);
  for (let step = 0; step < 40; step += 1) {
    const left = high - ratio * (high - low);
    const right = low + ratio * (high - low);
    if (loss(left) <= loss(right)) high = right;
    else low = left;
  }
  return Math.exp((low + high) / 2);
}

export interface DecisionTuning {
  /** Under-routing share the policy must stay below, 0..1. */
  maxUnder: number;
  /** Candidate penalties, tried in order. */
  penalties: readonly number[];
}

export interface TunedDecision {
  policy: DecisionPolicy;
  metrics: TierMetrics;
  /** Every candidate tried, for the training log. */
  candidates: readonly { policy: DecisionPolicy; metrics: TierMetrics }[];
}

type Scored = Omit<ScoredPrediction, 'predicted'>;

/** The under-routing penalties `npm run train` tries, in order. */
export const DEFAULT_PENALTIES: readonly number[] = Object.freeze([
  0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 2.75, 3, 3.25, 3.5, 3.75, 4, 5, 6, 8,
]);

/**
 * The penalty with the best exact accuracy among those whose under-routing stays below `maxUnder`;
 * when none does, the one with the least under-routing.
 */
export function tuneDecision(
  probabilities: readonly TierProbabilities[],
  gold: readonly Scored[],
  tuning: DecisionTuning,
): TunedDecision {
  const candidates = tuning.penalties.map((underPenalty) => {
    const policy = { underPenalty };
    const predictions = gold.map((example, index) => ({
      ...example,
      predicted: chooseTier(probabilities[index] ?? UNIFORM, policy),
    }));
    return { policy, metrics: toTierMetrics(predictions) };
  });
  const allowed = candidates.filter(({ metrics }) => metrics.under < tuning.maxUnder);
  const pool = allowed.length > 0 ? allowed : candidates;
  const score = ({ metrics }: { metrics: TierMetrics }): number =>
    allowed.length > 0 ? metrics.exact : -metrics.under;
  const best = pool.reduce((winner, candidate) => (score(candidate) > score(winner) ? candidate : winner));
  return { ...best, candidates };
}

const UNIFORM: TierProbabilities = { SIMPLE: 0.25, MODERATE: 0.25, COMPLEX: 0.25, EXPERT: 0.25 };
