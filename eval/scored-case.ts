import type { ClassificationDecision } from '../src/classify/decision.js';
import type { Tier } from '../src/shared/tier.js';
import type { EvalCase } from './eval-case.js';

/** The two tiers every metric compares. */
export interface TierPair {
  gold: Tier;
  predicted: Tier;
}

/** A pair plus the tiers that are also fine (always including `gold`). */
export interface AcceptablePair extends TierPair {
  acceptable: readonly Tier[];
}

/** One case after classification: what the report is computed from. */
export interface ScoredCase extends AcceptablePair {
  case: EvalCase;
  decision: ClassificationDecision;
  /** Wall time of the whole classify call, in milliseconds. */
  totalMs: number;
}

/** `count / total`, and 0 for an empty total, so empty tiers and files never yield NaN. */
export function toRate(count: number, total: number): number {
  return total === 0 ? 0 : count / total;
}
