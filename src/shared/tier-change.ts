/**
 * One change (or pin) of the tier on the way to a plan: a table rule (`classifier.rules`), an override, or
 * a tier-policy check (context window, vision, hours, session, key cap). /v1/route lists them as `rules`
 * and x-autotier-reason carries their labels.
 */
export interface TierChange {
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
export function toTierChangeLabel(rule: TierChange): string {
  const kind = rule.name === undefined ? rule.rule : `${rule.rule}[${rule.name}]`;
  return `${kind}:${rule.from}->${rule.to}`;
}
