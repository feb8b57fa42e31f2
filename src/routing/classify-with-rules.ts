import { applyTableRules, toExactRule } from '../classify/apply-table-rules.js';
import type { ClassificationDecision, Classifier, ClassifyRequest } from '../classify/decision.js';
import { matchTableRules, type TableRule } from '../classify/table-rules.js';
import { toTierChangeLabel, type TierChange } from '../shared/tier-change.js';
import type { CancelSignal } from '../shared/cancel-signal.js';
import type { Tier } from '../shared/tier.js';
import { inSpan, NO_SPAN, type Span } from '../shared/tracing.js';

export interface RuledClassification {
  /** The classifier's decision; undefined when an exact table rule decided. */
  classification: ClassificationDecision | undefined;
  /** The tier an exact table rule set, without asking the classifier. */
  ruleTier: Tier | undefined;
  /** The tier after the table's rules, before the hard rules that follow. */
  tier: Tier;
  /** A record per matching table rule. */
  rules: TierChange[];
}

export interface ClassifyWithRulesInput {
  classifier: Classifier;
  /** The routing table's `classifier.rules`, compiled. */
  tableRules: readonly TableRule[];
  request: ClassifyRequest;
  signal: CancelSignal;
  /** The request's span: classification gets an `autotier.classify` span under it. */
  span?: Span | undefined;
}

/**
 * Classifies an `auto` request under the routing table's rules: an exact rule that
 * matches spares the classifier (and its LLM call); otherwise the classifier decides and the highest
 * matching `min_tier` raises its tier.
 */
export function classifyWithRules(input: ClassifyWithRulesInput): Promise<RuledClassification> {
  return inSpan(input.span ?? NO_SPAN, 'autotier.classify', async (span) => {
    const { matched } = await matchTableRules(input.tableRules, input.request.messages);
    const exact = toExactRule(matched);
    const classification =
      exact === undefined ? await input.classifier.classify(input.request, input.signal, span) : undefined;
    const applied = applyTableRules({ matched, classified: classification?.tier ?? 'EXPERT' });
    if (span.recording)
      span.setAttributes({
        'autotier.complexity': classification?.tier ?? exact?.effect.tier,
        'autotier.cause': classification?.cause ?? 'rule',
        'autotier.confidence': classification?.confidence,
        'autotier.classify.llm_called': classification?.llmCalled ?? false,
        'autotier.signals': classification?.signals,
        'autotier.tier': applied.tier,
        'autotier.rules': applied.records.length === 0 ? undefined : applied.records.map(toTierChangeLabel),
      });
    return { classification, ruleTier: exact?.effect.tier, tier: applied.tier, rules: applied.records };
  });
}
