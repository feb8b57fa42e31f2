import type { TierChange } from '../shared/tier-change.js';
import { toTierRank, type Tier } from '../shared/tier.js';
import type { TableRule } from './table-rules.js';

/** The first matching rule with an exact `tier`: it decides, and the classifier is not called. */
export function toExactRule(matched: readonly TableRule[]): TableRule | undefined {
  return matched.find((rule) => rule.effect.kind === 'tier');
}

/** The matching `min_tier` rule with the highest tier; the first in table order among equals. */
function toHighestFloor(matched: readonly TableRule[]): TableRule | undefined {
  let highest: TableRule | undefined;
  for (const rule of matched) {
    if (rule.effect.kind !== 'min_tier') continue;
    if (highest === undefined || toTierRank(rule.effect.tier) > toTierRank(highest.effect.tier))
      highest = rule;
  }
  return highest;
}

export interface AppliedTableRules {
  /** The tier after the rules: the exact rule's or the classified one, raised to the highest floor. */
  tier: Tier;
  /**
   * One record per matching rule: the exact rule that decided (from `auto`), the floor that applied,
   * then every other match in table order (from and to the resulting tier, saying why it did not apply).
   */
  records: TierChange[];
}

export interface TableRulesInput {
  /** The matching rules, in table order. */
  matched: readonly TableRule[];
  /** The classifier's tier; not read when an exact rule matched (it is then not asked). */
  classified: Tier;
}

function toRecord(
  rule: TableRule,
  move: { from: string; to: string; note?: string | undefined },
): TierChange {
  const reason = move.note === undefined ? rule.reason : `${rule.reason} (${move.note})`;
  return { rule: 'rule', name: rule.name, from: move.from, to: move.to, reason };
}

/**
 * What the routing table's rules make of a request: an exact rule replaces the classifier
 * (the first in table order wins), then the highest `min_tier` raises the result. The hard rules that
 * follow (x-autotier-min-tier, session ladder, key caps, context length, vision) still apply to it.
 */
export function applyTableRules(input: TableRulesInput): AppliedTableRules {
  const { matched } = input;
  const exact = toExactRule(matched);
  const floor = toHighestFloor(matched);
  const records: TierChange[] = [];
  let tier = input.classified;
  if (exact !== undefined) {
    tier = exact.effect.tier;
    records.push(toRecord(exact, { from: 'auto', to: tier }));
  }
  if (floor !== undefined) {
    const raised = toTierRank(floor.effect.tier) > toTierRank(tier);
    const note = raised ? undefined : `already ${tier}`;
    records.push(toRecord(floor, { from: tier, to: raised ? floor.effect.tier : tier, note }));
    if (raised) tier = floor.effect.tier;
  }
  for (const rule of matched) {
    if (rule === exact || rule === floor) continue;
    const winner = rule.effect.kind === 'tier' ? exact : floor;
    const note =
      rule.effect.kind === 'tier'
        ? `not applied: rule ${winner?.name ?? ''} matched first`
        : `not applied: rule ${winner?.name ?? ''} asks for ${winner?.effect.tier ?? ''} or more`;
    records.push(toRecord(rule, { from: tier, to: tier, note }));
  }
  return { tier, records };
}
