import { describe, expect, it } from 'vitest';
import { checkRegexSafety } from './regex-safety.js';

const degreeOf = (source: string, flags = ''): number | undefined => checkRegexSafety(source, flags).degree;

describe('checkRegexSafety', () => {
  it.each([
    ['^(a|a)*$', ''],
    ['(a+)+b', ''],
    ['^(\\w+\\s?)*$', ''],
    ['(?:ab|ab)*c', ''],
    ['^(?:a|b|ab)*c$', ''],
    ['(x+x+)+y', ''],
    ['^(a|A)*$', 'i'],
    ['(?=(a|a)*$)', ''],
  ])('finds exponential backtracking in /%s/%s', (source, flags) => {
    const result = checkRegexSafety(source, flags);
    expect(result).toMatchObject({ safe: false, degree: Infinity, reason: 'exponential backtracking' });
  });

  it.each([
    ['a*a*c', '', 3],
    ['^a*a*c', '', 2],
    ['(ab)*(ab)*c', '', 3],
    ['a.*b', '', 2],
    ['\\d[\\d.,]*\\s*km', '', 2],
    ['^\\s*x', 'm', 2],
    ['(?<=a+)b', '', 2],
    // the kind of pattern that read the LLM reply's think blocks and code lines in earlier turns
    ['<think>[\\s\\S]*?<\\/think>', 'gi', 2],
    ['```|^\\s*(?:def |class |import )', 'm', 2],
  ])('finds polynomial backtracking in /%s/%s of degree %i', (source, flags, degree) => {
    expect(degreeOf(source, flags)).toBe(degree);
    expect(checkRegexSafety(source, flags).safe).toBe(false);
    expect(checkRegexSafety(source, flags, { maxDegree: degree }).safe).toBe(true);
  });

  it.each([
    ['abc', ''],
    ['\\d+', ''],
    ['a.*', ''],
    ['^[ \\t]*x', 'm'],
    ['^(a+)+', ''],
    ['x{0,400}y', ''],
    ['^[^@]+@[^@]+$', ''],
    ['\\b(?:hello|hi|hey)\\b', ''],
    ['\\p{L}+', 'u'],
  ])('calls /%s/%s linear', (source, flags) => {
    expect(checkRegexSafety(source, flags)).toMatchObject({ safe: true, degree: 1, reason: 'linear' });
  });

  it('counts a match that is certain again at every position when the regex runs at every position', () => {
    expect(degreeOf('a.*')).toBe(1);
    expect(checkRegexSafety('a.*', '', { everyPosition: true }).degree).toBe(2);
  });

  it('reads a sticky regex as one attempt where it is put', () => {
    expect(degreeOf('\\d+x', '')).toBe(2);
    expect(degreeOf('\\d+x', 'y')).toBe(1);
  });

  it.each([
    ['(a)\\1', '', 'backreferences'],
    ['[\\q{ab}]', 'v', '\\q'],
    ['(a', '', 'not a valid regex'],
    ['(?i:a)+', '', 'modifiers'],
  ])('calls /%s/%s unsafe with the reason (%s)', (source, flags, reason) => {
    const result = checkRegexSafety(source, flags);
    expect(result.safe).toBe(false);
    expect(result.reason).toContain(reason);
  });

  it('answers for a huge alternation without unrolling it into an unbounded amount of work', () => {
    const words = Array.from({ length: 3000 }, (_, index) => `word${index}`).join('|');
    const result = checkRegexSafety(`\\b(?:${words})\\b`, '');
    expect(result.safe).toBe(false);
    expect(result.reason).toMatch(/too (large|complex)/);
  });

  it('reads a large bounded repeat as unbounded rather than giving up', () => {
    expect(checkRegexSafety('^[a-z]{1,100000}$', '')).toMatchObject({ safe: true, degree: 1 });
    expect(degreeOf('(?:a{1,5000}){1,5000}b')).toBe(Infinity);
  });
});
