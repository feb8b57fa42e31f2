import { describe, expect, it } from 'vitest';
import { parseTableInput, toTableRejection } from '../../test/helpers/table-input.js';
import { MAX_CLASSIFIER_RULES } from './classifier-rule-schema.js';

const tier = { group: ['a'] };
const base = {
  deployments: [{ id: 'a', model: 'm1', base_url: 'http://127.0.0.1:1/v1', context_window: 1000 }],
  tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
};
const proofs = { name: 'proofs', keywords: ['prove', 'theorem'], min_tier: 'COMPLEX' };

function withRules(rules: unknown[]): unknown {
  return { ...base, classifier: { mode: 'local', rules } };
}

const parse = (input: unknown) => parseTableInput(input, 'rules.yaml');
const rejection = (input: unknown): string => toTableRejection(input, 'rules.yaml');

describe('classifier.rules validation', () => {
  it('defaults to no rules and fills a rule’s scope', () => {
    expect(parse(base).table.classifier.rules).toEqual([]);
    const [rule] = parse(withRules([proofs])).table.classifier.rules;
    expect(rule).toEqual({ ...proofs, match: 'last_user' });
  });

  it('accepts a linear pattern with allowed flags and a counted repeat up to 16', () => {
    const rule = {
      name: 'deploys',
      pattern: '\\bdeploy\\s+to\\s+prod(?:uction)?\\b.{0,16}\\b(?:now|today)\\b',
      flags: 'im',
      tier: 'EXPERT',
    };
    expect(parse(withRules([rule])).table.classifier.rules[0]).toMatchObject(rule);
  });

  it.each([
    ['an invalid regex', { pattern: '(unclosed', tier: 'SIMPLE' }, 'pattern: refused: not a valid regex'],
    ['a lookahead', { pattern: 'prove(?= it)', tier: 'SIMPLE' }, 'pattern: refused: lookaround'],
    ['a lookbehind', { pattern: '(?<!dis)prove', tier: 'SIMPLE' }, 'pattern: refused: lookaround'],
    ['a property RE2 lacks', { pattern: '\\p{Emoji}', flags: 'u', tier: 'SIMPLE' }, 'general categories'],
    [
      'a counted repeat over 16',
      { pattern: 'prove.{0,200}theorem', tier: 'SIMPLE' },
      'counted repeats read up to 200 characters',
    ],
    [
      'nested counted repeats over 16',
      { pattern: '(?:a{0,5}b){0,5}', tier: 'SIMPLE' },
      'up to 25 characters',
    ],
    ['a backreference', { pattern: '(a)\\1', tier: 'SIMPLE' }, 'pattern: refused: a backreference'],
    [
      'both tier and min_tier',
      { keywords: ['x'], tier: 'SIMPLE', min_tier: 'EXPERT' },
      'needs exactly one of tier or min_tier',
    ],
    ['neither tier nor min_tier', { keywords: ['x'] }, 'needs exactly one of tier or min_tier'],
    [
      'both pattern and keywords',
      { pattern: 'x', keywords: ['x'], tier: 'SIMPLE' },
      'needs exactly one of pattern or keywords',
    ],
    ['a g flag', { pattern: 'x', flags: 'g', tier: 'SIMPLE' }, 'flags: flag "g" is not allowed'],
    ['a repeated flag', { pattern: 'x', flags: 'ii', tier: 'SIMPLE' }, 'flags: flag "i" is given twice'],
    [
      'flags with keywords',
      { keywords: ['x'], flags: 'i', tier: 'SIMPLE' },
      'flags: flags apply to pattern only',
    ],
    [
      'an empty keyword',
      { keywords: ['x', '  '], tier: 'SIMPLE' },
      'keywords.1: an empty keyword matches nothing',
    ],
    ['an unknown key', { keywords: ['x'], tier: 'SIMPLE', scope: 'system' }, 'scope'],
    ['an unknown scope', { keywords: ['x'], tier: 'SIMPLE', match: 'assistant' }, 'match'],
    ['an unknown tier', { keywords: ['x'], tier: 'VISION' }, 'tier'],
    ['a pattern over 1000 characters', { pattern: 'x'.repeat(1001), tier: 'SIMPLE' }, 'pattern'],
  ])('rejects %s with the rule’s key path', (_what, fields, expected) => {
    const rules = [proofs, proofs, proofs, { name: 'bad', ...fields }].map((rule, index) => ({
      ...rule,
      name: `${rule.name}-${index}`,
    }));
    const message = rejection(withRules(rules));
    expect(message).toContain('rules.yaml');
    expect(message).toContain('classifier.rules.3');
    expect(message).toContain(expected);
    expect(message).not.toContain('classifier.rules.0');
  });

  it.each(['(a+)+b', '^(?:a|ab|b)*c', 'prove.*theorem', '(?:ha|haha){1,16}!', '^(\\w+\\s?)*$'])(
    'accepts %s, which backtracks on V8 and runs in linear time on RE2',
    (pattern) => {
      const rule = { name: 'shape', pattern, tier: 'SIMPLE' };
      expect(parse(withRules([rule])).table.classifier.rules[0]).toMatchObject(rule);
    },
  );

  it('rejects a duplicate rule name and more than the most rules', () => {
    expect(rejection(withRules([proofs, proofs]))).toContain(
      'classifier.rules.1.name: duplicate rule name "proofs" (also rule 0)',
    );
    const many = Array.from({ length: MAX_CLASSIFIER_RULES + 1 }, (_, index) => ({
      name: `r${index}`,
      keywords: [`word${index}`],
      min_tier: 'COMPLEX',
    }));
    expect(rejection(withRules(many))).toMatch(/classifier\.rules: .*200/);
    expect(parse(withRules(many.slice(0, MAX_CLASSIFIER_RULES))).table.classifier.rules).toHaveLength(200);
  });
});
