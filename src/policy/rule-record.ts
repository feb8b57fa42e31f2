/** One rule that changed (or pinned) the tier, as shown by /v1/route and x-autotier-reason. */
export interface RuleRecord {
  rule: string;
  /** The routing-table rule's name (`classifier.rules`), for rule `rule`. */
  name?: string;
  from: string;
  to: string;
  reason: string;
}

/**
 * A rule's short form, e.g. `context_length:SIMPLE->MODERATE`; a routing-table rule carries its name:
 * `rule[proofs]:MODERATE->COMPLEX`.
 */
export function toRuleLabel(rule: RuleRecord): string {
  const kind = rule.name === undefined ? rule.rule : `${rule.rule}[${rule.name}]`;
  return `${kind}:${rule.from}->${rule.to}`;
}
