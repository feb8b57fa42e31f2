import { describe, expect, it } from 'vitest';
import { classifierRulesSchema } from '../config/classifier-rule-schema.js';
import type { ChatMessage } from '../shared/chat.js';
import { compileTableRules, matchTableRules } from './table-rules.js';

const rules = compileTableRules(
  classifierRulesSchema.parse([
    { name: 'proofs', keywords: ['prove', 'theorem'], min_tier: 'COMPLEX' },
    { name: 'coding-bot', pattern: '^You are a coding assistant', match: 'system', min_tier: 'MODERATE' },
    { name: 'earlier-deploy', keywords: ['deploy to production'], match: 'any_user', tier: 'EXPERT' },
    { name: 'anywhere', pattern: 'TICKET-\\d+', match: 'all', tier: 'SIMPLE', reason: 'ticket triage' },
  ]),
);

const names = async (messages: ChatMessage[]): Promise<string[]> =>
  (await matchTableRules(rules, messages)).matched.map((rule) => rule.name);

describe('matchTableRules', () => {
  it('matches each rule against its own part of the conversation, in table order', async () => {
    expect(await names([{ role: 'user', content: 'Prove the theorem' }])).toEqual(['proofs']);
    expect(
      await names([
        { role: 'system', content: 'You are a coding assistant.' },
        { role: 'user', content: 'we deploy to production on fridays' },
        { role: 'assistant', content: 'see TICKET-42' },
        { role: 'user', content: 'hello' },
      ]),
    ).toEqual(['coding-bot', 'earlier-deploy', 'anywhere']);
  });

  it('reads only the last user message for last_user rules', async () => {
    const earlier = [
      { role: 'user', content: 'prove it' },
      { role: 'user', content: 'thanks' },
    ];
    expect(await names(earlier)).toEqual([]);
  });

  it('compiles the effect and a default or given reason', () => {
    expect(rules[0]).toMatchObject({
      effect: { kind: 'min_tier', tier: 'COMPLEX' },
      reason: 'matched a keyword in the last user message',
    });
    expect(rules[1]?.reason).toBe('matched its pattern in the system prompt');
    expect(rules[3]).toMatchObject({ effect: { kind: 'tier', tier: 'SIMPLE' }, reason: 'ticket triage' });
  });

  it('reads each part once per rule, up to the limit, and pauses between rules', async () => {
    let pauses = 0;
    const result = await matchTableRules(rules, [{ role: 'user', content: 'x'.repeat(100) }], {
      limit: 40,
      pauseEveryChars: 60,
      pause: () => {
        pauses += 1;
        return Promise.resolve();
      },
    });
    // last_user 40, system 0, any_user 40, all 40; a pause once 60 characters have been read
    expect(result.examinedChars).toBe(120);
    expect(pauses).toBe(1);
  });
});
