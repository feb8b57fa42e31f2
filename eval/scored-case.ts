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

/** What the routing table's `classifier.rules` did to one case. */
export interface CaseRules {
  /** The classifier's tier, before the rules. */
  classified: Tier;
  /** Names of the rules that matched, in table order. */
  fired: readonly string[];
  /** Names of the rules that changed the tier: the exact rule that set it, the min_tier that raised it. */
  changed: readonly string[];
  /** True when an exact rule decided: the service does not call the classifier then. */
  exact: boolean;
}

/** One case after classification: what the report is computed from. */
export interface ScoredCase extends AcceptablePair {
  case: EvalCase;
  /** The classifier's decision; `predicted` is its tier after the table's rules. */
  decision: ClassificationDecision;
  /** Undefined when the table has no rules. */
  rules?: CaseRules;
  /** Wall time of the whole classify call, in milliseconds. */
  totalMs: number;
}

/** `count / total`, and 0 for an empty total, so empty tiers and files never yield NaN. */
export function toRate(count: number, total: number): number {
  return total === 0 ? 0 : count / total;
}
