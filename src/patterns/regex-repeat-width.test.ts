import { describe, expect, it } from 'vitest';
import { toLargestRepeat } from './regex-repeat-width.js';

describe('toLargestRepeat', () => {
  it.each([
    ['abc', '', 1],
    ['a?b', '', 1],
    ['a+b*', '', 1],
    ['x{0,400}y', '', 400],
    ['(?:a{0,5}b){0,5}', '', 25],
    ['(?:a{2,3})+', '', 3],
    ['\\d{1,3}(?:,\\d{3})*', '', 3],
    ['(?=a{0,40})b', '', 40],
    ['[\\p{L}]{0,8}', 'u', 8],
  ])('reads /%s/%s as repeating up to %i times from one start', (source, flags, expected) => {
    expect(toLargestRepeat(source, flags)).toBe(expected);
  });

  it('throws for a regex it cannot parse', () => {
    expect(() => toLargestRepeat('(a', '')).toThrow();
  });
});
