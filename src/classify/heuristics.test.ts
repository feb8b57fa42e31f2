import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../shared/chat.js';
import { toClassifyInput } from './classify-input.js';
import { BASE_SCORES, scoreHeuristics } from './heuristics.js';
import { toTierProbabilities, toTopTier } from './tier-probabilities.js';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const score = (messages: ChatMessage[], tools?: unknown[]) =>
  scoreHeuristics(toClassifyInput(tools === undefined ? { messages } : { messages, tools }));
const signalsOf = (text: string): readonly string[] => score([user(text)]).signals;

describe('scoreHeuristics', () => {
  it('gives a MODERATE-ish distribution, never SIMPLE, when no signal fires', () => {
    expect(toTopTier(toTierProbabilities(BASE_SCORES))).toBe('MODERATE');
    const result = score([
      user('The old lighthouse keeper painted the fence blue last summer, then went home.'),
    ]);
    expect(result.signals).toEqual(['short_text']);
    expect(toTopTier(result.probabilities)).not.toBe('SIMPLE');
  });

  it('returns probabilities that sum to 1 and the names of the signals that fired', () => {
    const result = score([user('Write a python function that parses a CSV file')]);
    const total = Object.values(result.probabilities).reduce((sum, value) => sum + value, 0);
    expect(total).toBeCloseTo(1, 10);
    expect(result.signals).toContain('code_request');
    expect(toTopTier(result.probabilities)).toBe('COMPLEX');
  });

  it('reports an EXPERT floor for a proof request and a SIMPLE ceiling for a bare greeting', () => {
    expect(score([user('Prove that there are infinitely many primes.')]).floor).toBe('EXPERT');
    expect(score([user('hi!')]).ceiling).toBe('SIMPLE');
    expect(score([user('hi, write me a python script that renames files')]).ceiling).toBeUndefined();
  });

  it('leans SIMPLE for a short lookup and MODERATE for a short explanation question', () => {
    expect(toTopTier(score([user('who wrote hamlet')]).probabilities)).toBe('SIMPLE');
    expect(toTopTier(score([user('why do cats purr?')]).probabilities)).toBe('MODERATE');
  });
});

describe('derived signals', () => {
  it('greeting_only needs a greeting and nothing to do', () => {
    expect(signalsOf('good morning!')).toContain('greeting_only');
    expect(signalsOf('ありがとうございます！')).toContain('greeting_only');
    expect(signalsOf('hello, translate this into french: good night')).not.toContain('greeting_only');
  });

  it('short_lookup needs a short fact question', () => {
    expect(signalsOf('when did the berlin wall fall')).toContain('short_lookup');
    expect(signalsOf('why did the berlin wall fall')).not.toContain('short_lookup');
  });

  it('short_arithmetic and yes_no_question only fire on short texts', () => {
    expect(signalsOf('whats 7 times 8 again')).toContain('short_arithmetic');
    expect(signalsOf(`${'Some context about my budget. '.repeat(4)}what is 7 times 8`)).not.toContain(
      'short_arithmetic',
    );
    expect(signalsOf('is python case sensitive?')).toContain('yes_no_question');
    expect(signalsOf('is it better to explain why python is case sensitive?')).not.toContain(
      'yes_no_question',
    );
  });

  it('measures length: very_short, short_text, long_prompt, long_document', () => {
    expect(signalsOf('thanks')).toEqual(expect.arrayContaining(['very_short', 'short_text']));
    const long = 'The committee reviewed the annual budget in detail. '.repeat(40);
    expect(signalsOf(long)).toContain('long_prompt');
    expect(signalsOf(long)).not.toContain('long_document');
    expect(signalsOf(long.repeat(4))).toContain('long_document');
  });

  it('spots dense code, dense math, several questions and many numbers', () => {
    expect(
      signalsOf('for (let i = 0; i < n; i++) { sum[i] = a[i] + b[i]; total += sum[i]; } return total;'),
    ).toContain('dense_code');
    expect(signalsOf('Compute $\\sum_{k=1}^{n} k^2$ and $\\int_0^1 x^3 dx$ please.')).toContain('dense_math');
    expect(signalsOf('why? and how?')).toContain('several_questions');
    expect(signalsOf('numbers 12 34 56 78 here')).toContain('many_numbers');
  });

  it('reads the conversation: long_conversation, recent_code, long_system_prompt, tools_present', () => {
    const turns: ChatMessage[] = [
      user('hello'),
      { role: 'assistant', content: 'hi, how can I help?' },
      user('look at this'),
      { role: 'assistant', content: 'Sure:\n```python\nprint(1)\n```' },
      user('ok'),
      { role: 'assistant', content: 'anything else?' },
      user('thanks'),
    ];
    const signals = score(
      [{ role: 'system', content: 'Be helpful. '.repeat(300) }, ...turns],
      [{ type: 'function' }],
    ).signals;
    expect(signals).toEqual(
      expect.arrayContaining(['long_conversation', 'recent_code', 'long_system_prompt', 'tools_present']),
    );
    expect(score([user('thanks')]).signals).not.toContain('recent_code');
  });
});
