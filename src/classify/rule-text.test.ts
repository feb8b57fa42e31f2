import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../shared/chat.js';
import { toRuleText } from './rule-text.js';

const conversation: ChatMessage[] = [
  { role: 'system', content: 'You are a prover.' },
  { role: 'developer', content: 'Answer briefly.' },
  { role: 'user', content: 'first question' },
  { role: 'assistant', content: 'first answer' },
  { role: 'tool', content: 'tool output' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'last' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      { type: 'text', text: 'question' },
    ],
  },
];

const read = (scope: Parameters<typeof toRuleText>[1]['scope'], limit = 1000): string =>
  toRuleText(conversation, { scope, limit });

describe('toRuleText', () => {
  it('reads the last user message alone for last_user, its text parts joined by newlines', () => {
    expect(read('last_user')).toBe('last\nquestion');
  });

  it('reads the messages of a part newest first, a blank line between them', () => {
    expect(read('any_user')).toBe('last\nquestion\n\nfirst question');
    expect(read('system')).toBe('Answer briefly.\n\nYou are a prover.');
    expect(read('all')).toBe(
      'last\nquestion\n\ntool output\n\nfirst answer\n\nfirst question\n\nAnswer briefly.\n\nYou are a prover.',
    );
  });

  it('is empty when the part has no message', () => {
    expect(toRuleText([{ role: 'user', content: 'hi' }], { scope: 'system', limit: 100 })).toBe('');
    expect(toRuleText([{ role: 'system', content: 'hi' }], { scope: 'last_user', limit: 100 })).toBe('');
  });

  it('cuts the text at the limit, reading each message only up to what is left', () => {
    expect(read('any_user', 10)).toBe('last\nquest');
    expect(read('any_user', 17)).toBe('last\nquestion\n\nfi');
    const huge = 'x'.repeat(1_000_000);
    const text = toRuleText(
      [
        { role: 'user', content: huge },
        { role: 'user', content: [{ type: 'text', text: huge }] },
      ],
      { scope: 'any_user', limit: 65_536 },
    );
    expect(text).toHaveLength(65_536);
  });
});
