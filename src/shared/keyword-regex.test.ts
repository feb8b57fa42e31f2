import { describe, expect, it } from 'vitest';
import { KEYWORD_FLAGS, toKeywordsSource } from './keyword-regex.js';
import { checkRegexSafety } from './regex-safety.js';

const matcher = (keywords: string[]): RegExp => new RegExp(toKeywordsSource(keywords), KEYWORD_FLAGS);

describe('toKeywordsSource', () => {
  it('matches a keyword in any case, on word boundaries only', () => {
    const regex = matcher(['prove', 'theorem']);
    expect(regex.test('Please PROVE this')).toBe(true);
    expect(regex.test('the Theorem.')).toBe(true);
    expect(regex.test('improve it')).toBe(false);
    expect(regex.test('proven results')).toBe(false);
    expect(regex.test('theorems')).toBe(false);
    expect(regex.test('prove_it')).toBe(false);
  });

  it('reads letters of every script as word characters at a boundary', () => {
    expect(matcher(['beweis']).test('der Beweisführung')).toBe(false);
    expect(matcher(['beweis']).test('ein Beweis!')).toBe(true);
    expect(matcher(['доказать']).test('Доказать теорему')).toBe(true);
  });

  it('matches a phrase across any whitespace between its words', () => {
    const regex = matcher(['step by step']);
    expect(regex.test('think step\n by\tstep please')).toBe(true);
    expect(regex.test('stepbystep')).toBe(false);
  });

  it('asks no boundary at an edge that is not a word character, or in a script without spaces', () => {
    expect(matcher(['C++']).test('write it in C++, please')).toBe(true);
    expect(matcher(['C++']).test('write it in c++20')).toBe(true);
    expect(matcher(['C++']).test('write it in abc++')).toBe(false);
    expect(matcher(['.net']).test('use ASP.NET')).toBe(true);
    expect(matcher(['증명']).test('이 정리를 증명을 해 주세요')).toBe(true);
    expect(matcher(['证明']).test('请证明这个定理')).toBe(true);
    expect(matcher(['証明']).test('この定理を証明してください')).toBe(true);
  });

  it('takes regex syntax in a keyword literally', () => {
    const regex = matcher(['a.b', '(x|y)', 'what?', 'c:\\dir/']);
    expect(regex.test('axb')).toBe(false);
    expect(regex.test('say a.b now')).toBe(true);
    expect(regex.test('(x|y)')).toBe(true);
    expect(regex.test('x')).toBe(false);
    expect(regex.test('so what? ok')).toBe(true);
    expect(regex.test('open c:\\dir/ now')).toBe(true);
  });

  it('leaves out keywords that are only whitespace', () => {
    expect(toKeywordsSource(['  ', 'x'])).toBe(toKeywordsSource(['x']));
  });

  it.each([
    [['prove', 'theorem', 'step by step']],
    [['a', 'aa', 'a a', 'a  a a']],
    [['C++', '.NET', 'x-y', 'what?']],
    [['증명', '证明', 'доказать', 'ß', 'İstanbul']],
  ])(
    'builds a linear regex, as the load-time check is skipped for keywords (%j)',
    (keywords) => {
      const result = checkRegexSafety(toKeywordsSource(keywords), KEYWORD_FLAGS);
      expect(result).toMatchObject({ safe: true, degree: 1 });
    },
    20_000,
  );
});
