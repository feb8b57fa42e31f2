import { describe, expect, it } from 'vitest';
import type { Tier } from '../shared/tier.js';
import { applyTableRules, toExactRule } from './apply-table-rules.js';
import type { TableRule } from './table-rules.js';

function rule(name: string, kind: 'tier' | 'min_tier', tier: Tier): TableRule {
  return { name, scope: 'last_user', regex: /x/, effect: { kind, tier }, reason: `${name} reason` };
}

describe('applyTableRules', () => {
  it('leaves the classified tier when nothing matched', () => {
    expect(applyTableRules({ matched: [], classified: 'MODERATE' })).toEqual({
      tier: 'MODERATE',
      records: [],
    });
  });

  it('sets the tier of the first exact rule in table order, replacing the classifier', () => {
    const matched = [
      rule('min', 'min_tier', 'SIMPLE'),
      rule('first', 'tier', 'SIMPLE'),
      rule('second', 'tier', 'EXPERT'),
    ];
    expect(toExactRule(matched)?.name).toBe('first');
    const applied = applyTableRules({ matched, classified: 'EXPERT' });
    expect(applied.tier).toBe('SIMPLE');
    expect(applied.records).toEqual([
      { rule: 'rule', name: 'first', from: 'auto', to: 'SIMPLE', reason: 'first reason' },
      { rule: 'rule', name: 'min', from: 'SIMPLE', to: 'SIMPLE', reason: 'min reason (already SIMPLE)' },
      {
        rule: 'rule',
        name: 'second',
        from: 'SIMPLE',
        to: 'SIMPLE',
        reason: 'second reason (not applied: rule first matched first)',
      },
    ]);
  });

  it('raises the classified tier to the highest min_tier, the first among equals', () => {
    const matched = [
      rule('moderate', 'min_tier', 'MODERATE'),
      rule('complex-a', 'min_tier', 'COMPLEX'),
      rule('complex-b', 'min_tier', 'COMPLEX'),
    ];
    const applied = applyTableRules({ matched, classified: 'SIMPLE' });
    expect(applied.tier).toBe('COMPLEX');
    expect(applied.records.map((record) => [record.name, record.from, record.to])).toEqual([
      ['complex-a', 'SIMPLE', 'COMPLEX'],
      ['moderate', 'COMPLEX', 'COMPLEX'],
      ['complex-b', 'COMPLEX', 'COMPLEX'],
    ]);
    expect(applied.records[1]?.reason).toContain('not applied: rule complex-a asks for COMPLEX or more');
  });

  it('never lowers the classified tier with a min_tier', () => {
    const applied = applyTableRules({
      matched: [rule('floor', 'min_tier', 'MODERATE')],
      classified: 'EXPERT',
    });
    expect(applied).toEqual({
      tier: 'EXPERT',
      records: [
        {
          rule: 'rule',
          name: 'floor',
          from: 'EXPERT',
          to: 'EXPERT',
          reason: 'floor reason (already EXPERT)',
        },
      ],
    });
  });

  it('raises an exact rule’s tier with a higher min_tier that also matched', () => {
    const matched = [rule('greeting', 'tier', 'SIMPLE'), rule('proofs', 'min_tier', 'COMPLEX')];
    const applied = applyTableRules({ matched, classified: 'MODERATE' });
    expect(applied.tier).toBe('COMPLEX');
    expect(applied.records.map((record) => `${record.name}:${record.from}->${record.to}`)).toEqual([
      'greeting:auto->SIMPLE',
      'proofs:SIMPLE->COMPLEX',
    ]);
  });
});
