import { maxTier, toNextTier, toTierRank, type Tier } from '../shared/tier.js';
import type { TierProbabilities } from './decision.js';
import { decideWithVerdict, type VerdictCalibration } from './combine-with-verdict.js';
import { isSureLocalDecision } from './local-classifier.js';
import { toValueOfAsking } from './value-of-asking.js';

/**
 * How the cascade combines the local decision with the LLM's verdict. `round_up`, `llm` and `local`
 * settle a one-tier disagreement by that rule (the LLM decides bigger ones); `calibrated` takes the
 * tier of least expected cost under p(t | v) ∝ p_local(t)^a · C[v|t].
 */
export type Disagreement = 'round_up' | 'llm' | 'local' | 'calibrated';

export interface CascadeCombination {
  disagreement: Disagreement;
  /** Read by `disagreement: calibrated` and by `gate: value`. */
  calibration: VerdictCalibration;
}

/**
 * Which requests the cascade asks the LLM about: `confidence` when the local tier's probability is
 * below `threshold`; `value` when asking is expected to save at least `minValue` tiers of misrouting
 * cost (`toValueOfAsking`).
 */
export type CascadeGate = { by: 'confidence'; threshold: number } | { by: 'value'; minValue: number };

/** The local stage's result as the cascade's rules read it. */
export interface LocalView {
  tier: Tier;
  probabilities: TierProbabilities;
  /** Probability of `tier`. */
  confidence: number;
}

/** True when the cascade asks the LLM about this request (mode `cascade`). */
export function shouldAskLlm(local: LocalView, gate: CascadeGate, calibration: VerdictCalibration): boolean {
  if (gate.by === 'confidence') return !isSureLocalDecision(local, gate.threshold);
  return toValueOfAsking(local, calibration) >= gate.minValue;
}

/**
 * The tier when the LLM was wanted but gave no verdict: the local tier, one tier up when the local
 * stage was unsure (its tier's probability below `threshold`).
 */
export function toFallbackTier(local: LocalView, threshold: number): Tier {
  return isSureLocalDecision(local, threshold) ? local.tier : toNextTier(local.tier);
}

/** When the two stages disagree by one tier, the policy decides; by two or more, the LLM does. */
export function combineVerdicts(local: Tier, llm: Tier, policy: Exclude<Disagreement, 'calibrated'>): Tier {
  if (Math.abs(toTierRank(local) - toTierRank(llm)) !== 1) return llm;
  if (policy === 'round_up') return maxTier(local, llm);
  return policy === 'llm' ? llm : local;
}

/** The tier the cascade routes to once the LLM answered `verdict` about a request the local stage scored. */
export function toCascadeTier(
  local: { tier: Tier; probabilities: TierProbabilities },
  verdict: Tier,
  combination: CascadeCombination,
): Tier {
  if (combination.disagreement !== 'calibrated')
    return combineVerdicts(local.tier, verdict, combination.disagreement);
  return decideWithVerdict(local.probabilities, verdict, combination.calibration).tier;
}
