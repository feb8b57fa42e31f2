import { describe, expect, it } from 'vitest';
import { compileTableRules, matchTableRules, RULE_PAUSE_CHARS } from '../../src/classify/table-rules.js';
import { RULE_TEXT_CHARS } from '../../src/classify/rule-text.js';
import {
  classifierRulesSchema,
  MAX_CLASSIFIER_RULES,
  RULE_SCOPES,
} from '../../src/config/classifier-rule-schema.js';
import { toHostileRequests, toHostileShapes } from '../helpers/hostile-inputs.js';

/**
 * Routing-table rules over hostile 1 MB prompts (STYLE.md 18): a table with the most rules,
 * keyword and pattern rules on every part of the conversation. The bound is checked on the work
 * itself, not on wall time: every rule is linear (the schema refuses any other pattern), and the
 * characters the rules read are at most rules x RULE_TEXT_CHARS, with the event loop free after every
 * RULE_PAUSE_CHARS.
 */
const MEGABYTE = 1_000_000;

const table = classifierRulesSchema.parse(
  Array.from({ length: MAX_CLASSIFIER_RULES }, (_, index) => {
    const match = RULE_SCOPES[index % RULE_SCOPES.length];
    return index % 2 === 0
      ? {
          name: `keywords-${index}`,
          keywords: ['prove', 'step by step', `zz${index}`, '증명'],
          match,
          min_tier: 'COMPLEX',
        }
      : {
          name: `pattern-${index}`,
          pattern: `\\b(?:deploy|ship)\\s+to\\s+prod${index}\\b`,
          flags: 'i',
          match,
          tier: 'EXPERT',
        };
  }),
);
const rules = compileTableRules(table);

describe('routing-table rules over hostile 1 MB prompts', () => {
  const requests = [...toHostileRequests(MEGABYTE), ...toHostileShapes(MEGABYTE)];

  it.each(requests.map((request) => [request.name, request] as const))(
    'reads at most rules x 64 KiB of "%s", pausing every MiB',
    async (_name, hostile) => {
      expect(hostile.length).toBeGreaterThanOrEqual(MEGABYTE * 0.99);
      let sincePause = 0;
      let largestStretch = 0;
      let pauses = 0;
      const measured = compileTableRules(table).map((rule) => {
        const test = rule.regex.test.bind(rule.regex);
        rule.regex.test = (text: string): boolean => {
          sincePause += text.length;
          largestStretch = Math.max(largestStretch, sincePause);
          return test(text);
        };
        return rule;
      });
      const result = await matchTableRules(measured, hostile.request.messages, {
        pause: () => {
          pauses += 1;
          sincePause = 0;
          return Promise.resolve();
        },
      });
      expect(result.examinedChars).toBeLessThanOrEqual(rules.length * RULE_TEXT_CHARS);
      expect(largestStretch).toBeLessThanOrEqual(RULE_PAUSE_CHARS + RULE_TEXT_CHARS);
      if (result.examinedChars > RULE_PAUSE_CHARS + RULE_TEXT_CHARS) expect(pauses).toBeGreaterThan(0);
    },
  );

  it('reads exactly 64 KiB of a 1 MB user message per rule that reads it', async () => {
    const messages = [{ role: 'user', content: 'prove '.repeat(MEGABYTE / 6) }];
    const result = await matchTableRules(rules, messages, { pause: () => Promise.resolve() });
    const readers = rules.filter((rule) => rule.scope !== 'system').length;
    expect(readers).toBe(150);
    expect(result.examinedChars).toBe(readers * RULE_TEXT_CHARS);
    expect(result.matched.map((rule) => rule.name)).toContain('keywords-0');
  });
});
