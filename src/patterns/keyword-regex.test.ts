import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KEYWORD_FLAGS, toKeywordsSource } from './keyword-regex.js';
import { checkRegexSafety } from '../../test/regex-audit/regex-safety.js';

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

  it('matches exactly where a plain alternation of the keywords does (shared starts in one trie)', () => {
    const escape = (word: string): string => word.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
    const edge = (char: string | undefined): boolean => char !== undefined && /[\p{L}\p{N}_]/u.test(char);
    /** The keywords as one alternative each: what the trie must equal. */
    const plain = (keywords: string[]): RegExp => {
      const sources = keywords
        .map((keyword) => keyword.split(/\s+/u).filter((word) => word !== ''))
        .filter((words) => words.length > 0)
        .map((words) => {
          const chars = [...words.join(' ')];
          const before = edge(chars[0]) ? '(?<![\\p{L}\\p{N}_])' : '';
          const after = edge(chars.at(-1)) ? '(?![\\p{L}\\p{N}_])' : '';
          return `${before}${words.map(escape).join('\\s+')}${after}`;
        });
      return new RegExp(sources.join('|'), KEYWORD_FLAGS);
    };
    const letters = fc.constantFrom('a', 'b', 'A', ' ', '.', '+', '\n', '_', '1');
    const word = fc.string({ unit: letters, minLength: 1, maxLength: 5 });
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 6 }),
        fc.string({ unit: letters, maxLength: 30 }),
        (keywords, text) => {
          const usable = keywords.filter((keyword) => keyword.trim() !== '');
          fc.pre(usable.length > 0);
          expect(matcher(keywords).test(text)).toBe(plain(keywords).test(text));
        },
      ),
      { numRuns: 300, seed: 19 },
    );
  });

  it.each([
    [['prove', 'theorem', 'step by step']],
    [['a', 'aa', 'a a', 'a  a a']],
    [['pro', 'prove', 'proof', 'prove that', 'step by', 'step by step', 'Step']],
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
