import { applyTableRules } from '../src/classify/apply-table-rules.js';
import { matchTableRules, type TableRule } from '../src/classify/table-rules.js';
import type { ChatMessage } from '../src/shared/chat.js';
import type { Tier } from '../src/shared/tier.js';
import type { CaseRules } from './scored-case.js';

/**
 * The routing table's rules over one case, as the service applies them (src/classify/table-rules.ts,
 * apply-table-rules.ts), after the classifier: the eval always classifies, so it can also report the
 * accuracy without the rules.
 */
export async function applyCaseRules(input: {
  rules: readonly TableRule[];
  messages: readonly ChatMessage[];
  classified: Tier;
}): Promise<{ tier: Tier; rules: CaseRules }> {
  const { matched } = await matchTableRules(input.rules, input.messages);
  const applied = applyTableRules({ matched, classified: input.classified });
  const changed = applied.records
    .filter((record) => (record.from === 'auto' ? record.to !== input.classified : record.from !== record.to))
    .map((record) => record.name ?? record.rule);
  return {
    tier: applied.tier,
    rules: {
      classified: input.classified,
      fired: matched.map((rule) => rule.name),
      changed,
      exact: matched.some((rule) => rule.effect.kind === 'tier'),
    },
  };
}
