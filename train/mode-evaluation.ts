import type { TierProbabilities } from '../src/classify/decision.js';
import { applyTierBounds, chooseTier } from '../src/classify/choose-tier.js';
import type { DecisionPolicy } from '../src/classify/local-model.js';
import type { LocalMode } from '../src/classify/local-classifier.js';
import { applyBlend, type TierBlend } from '../src/classify/tier-blend.js';
import { toTierMetrics, type ScoredPrediction, type TierMetrics } from './tier-metrics.js';
import type { EncodedExample } from './training-set.js';

export const LOCAL_MODES: readonly LocalMode[] = ['heuristic', 'learned', 'local'];

/** The probabilities each mode decides from, as `createLocalClassifier` computes them. */
export type ModeProbabilities = Record<LocalMode, TierProbabilities>;

export function toModeProbabilities(
  encoded: EncodedExample,
  learned: TierProbabilities,
  blend?: TierBlend,
): ModeProbabilities {
  const blended =
    blend === undefined
      ? learned
      : applyBlend(blend, { learned, heuristic: encoded.heuristic.probabilities });
  return {
    heuristic: applyTierBounds(encoded.heuristic.probabilities, encoded.heuristic),
    learned,
    local: applyTierBounds(blended, encoded.heuristic),
  };
}

export interface ModePolicies {
  heuristic: DecisionPolicy;
  model: DecisionPolicy;
}

export interface ScoredItem {
  encoded: EncodedExample;
  probabilities: ModeProbabilities;
}

/** Predictions of one mode, ready for `toTierMetrics`. */
export function toModePredictions(
  items: readonly ScoredItem[],
  mode: LocalMode,
  policies: ModePolicies,
): ScoredPrediction[] {
  const policy = mode === 'heuristic' ? policies.heuristic : policies.model;
  return items.map(({ encoded, probabilities }) => ({
    predicted: chooseTier(probabilities[mode], policy),
    label: encoded.example.label,
    acceptable: encoded.example.acceptable,
    source: encoded.example.source,
  }));
}

export function scoreModes(
  items: readonly ScoredItem[],
  policies: ModePolicies,
): Record<LocalMode, TierMetrics> {
  return {
    heuristic: toTierMetrics(toModePredictions(items, 'heuristic', policies)),
    learned: toTierMetrics(toModePredictions(items, 'learned', policies)),
    local: toTierMetrics(toModePredictions(items, 'local', policies)),
  };
}
