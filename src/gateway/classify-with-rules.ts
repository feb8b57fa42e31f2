import { applyTableRules, toExactRule } from '../classify/apply-table-rules.js';
import type { ClassificationDecision, Classifier, ClassifyRequest } from '../classify/decision.js';
import { matchTableRules, type TableRule } from '../classify/table-rules.js';
import type { RuleRecord } from '../policy/plan-route.js';
import type { CancelSignal } from '../shared/cancel-signal.js';
import type { Tier } from '../shared/tier.js';

export interface RuledClassification {
  /** The classifier's decision; undefined when an exact table rule decided. */
  classification: ClassificationDecision | undefined;
  /** The tier an exact table rule set, without asking the classifier. */
  ruleTier: Tier | undefined;
  /** The tier after the table's rules, before the hard rules that follow. */
  tier: Tier;
  /** A record per matching table rule. */
  rules: RuleRecord[];
}

export interface ClassifyWithRulesInput {
  classifier: Classifier;
  /** The routing table's `classifier.rules`, compiled. */
  tableRules: readonly TableRule[];
  request: ClassifyRequest;
  signal: CancelSignal;
}

/**
 * Classifies an `auto` request under the routing table's rules (issue 19): an exact rule that
 * matches spares the classifier (and its LLM call); otherwise the classifier decides and the highest
 * matching `min_tier` raises its tier.
 */
export async function classifyWithRules(input: ClassifyWithRulesInput): Promise<RuledClassification> {
  const { matched } = await matchTableRules(input.tableRules, input.request.messages);
  const exact = toExactRule(matched);
  const classification =
    exact === undefined ? await input.classifier.classify(input.request, input.signal) : undefined;
  const applied = applyTableRules({ matched, classified: classification?.tier ?? 'EXPERT' });
  return {
    classification,
    ruleTier: exact?.effect.tier,
    tier: applied.tier,
    rules: applied.records,
  };
}
