import type { TableRule } from '../src/classify/table-rules.js';
import type { Tier } from '../src/shared/tier.js';
import { toAcceptableAccuracy, toAccuracy, toRoutingRates } from './routing-rates.js';
import type { ScoredCase } from './scored-case.js';

/** One rule of the table and the cases it matched. */
export interface RuleFiring {
  name: string;
  /** `tier` sets the tier exactly; `min_tier` raises it. */
  kind: 'tier' | 'min_tier';
  tier: Tier;
  /** Cases it matched. */
  fired: number;
  /** Cases whose tier it changed (an exact rule that set another tier, a min_tier that raised it). */
  changed: number;
}

/** The quality figures of the classifier alone, before the rules. */
export interface WithoutRules {
  accuracy: number;
  acceptable_accuracy: number;
  under_routing_rate: number;
  over_routing_rate: number;
}

/** What the routing table's `classifier.rules` did over the file; rates are 0..1. */
export interface RulesReport {
  /** Rules in the table. */
  count: number;
  /** Cases at least one rule matched. */
  cases_fired: number;
  /** Cases whose final tier differs from the classifier's. */
  cases_changed: number;
  /** Cases an exact rule decided: the service does not call the classifier for them. */
  cases_exact: number;
  /** Each rule in table order. */
  rules: RuleFiring[];
  /** The classifier alone; the report's headline figures are with the rules. */
  without_rules: WithoutRules;
}

/** The rules part of a report; null when the table has no rules. */
export function toRulesReport(
  cases: readonly ScoredCase[],
  tableRules: readonly TableRule[],
): RulesReport | null {
  if (tableRules.length === 0) return null;
  const count = (test: (scored: ScoredCase) => boolean): number => cases.filter(test).length;
  const classified = cases.map((scored) => ({
    gold: scored.gold,
    predicted: scored.rules?.classified ?? scored.predicted,
    acceptable: scored.acceptable,
  }));
  const rates = toRoutingRates(classified);
  return {
    count: tableRules.length,
    cases_fired: count((scored) => (scored.rules?.fired.length ?? 0) > 0),
    cases_changed: count(
      (scored) => scored.rules !== undefined && scored.rules.classified !== scored.predicted,
    ),
    cases_exact: count((scored) => scored.rules?.exact === true),
    rules: tableRules.map((rule) => ({
      name: rule.name,
      kind: rule.effect.kind,
      tier: rule.effect.tier,
      fired: count((scored) => scored.rules?.fired.includes(rule.name) === true),
      changed: count((scored) => scored.rules?.changed.includes(rule.name) === true),
    })),
    without_rules: {
      accuracy: toAccuracy(classified),
      acceptable_accuracy: toAcceptableAccuracy(classified),
      under_routing_rate: rates.under,
      over_routing_rate: rates.over,
    },
  };
}
