import { describe, expect, it } from 'vitest';
import { createPatternSet } from './pattern-set.js';
import { distributeGroup, splitTopLevel, toLiteralPrefix } from './regex-source.js';

function scan(patterns: readonly RegExp[], text: string): boolean[] {
  const found = new Array<boolean>(patterns.length).fill(false);
  createPatternSet(patterns).scan(text, found);
  return found;
}

describe('createPatternSet', () => {
  it('answers exactly what testing each pattern alone answers', () => {
    const patterns = [/\bcat\b/, /ca(t|r)/, /^dog/m, /(a)(b)?c/, /\bbird\b/, /t\s*$/];
    for (const text of ['a cat and a car', 'my\ndog', 'abc', 'the bird sat', 'nothing here', 'cat']) {
      expect(scan(patterns, text)).toEqual(patterns.map((pattern) => pattern.test(text)));
    }
  });

  it('finds a pattern that matches at the same position as an earlier one', () => {
    expect(scan([/write/, /write a poem/], 'please write a poem')).toEqual([true, true]);
  });

  it('finds a match that starts inside an earlier match', () => {
    expect(scan([/abcdef/, /cd/], 'xxabcdefxx')).toEqual([true, true]);
  });

  it('matches word-start branches only where a word starts, like the patterns alone', () => {
    const patterns = [/\bcat\b|猫/, /\bat|zz/, /\b(?:dog|do)g?\b/];
    for (const text of ['concat', 'a cat', '猫', 'at home', 'dog', 'hotdog', 'xzz']) {
      expect(scan(patterns, text)).toEqual(patterns.map((pattern) => pattern.test(text)));
    }
  });

  it('finds non-ASCII branches in mixed text and skips them on ASCII text', () => {
    const patterns = [/캐시|\bcache\b/, /缓存/];
    for (const text of ['redis 캐시', 'a cache', '缓存', 'plain ascii']) {
      expect(scan(patterns, text)).toEqual(patterns.map((pattern) => pattern.test(text)));
    }
  });

  it('answers like the patterns alone when branches share first characters', () => {
    const patterns = [
      /\b(?:thanks|thank you|that)\b/,
      /\b(?:than|t?hat|then)\b/,
      /\bTH(?:e|ank)/i,
      /(?:ab|a?c|ad)x/m,
      /^(?:the|this) /m,
      /(a)b|\b(?:tb|th)/,
      /\b\d+ (?:ways|tips)\b/,
      /\b(?:\d*x|\d?y)\b/,
    ];
    const texts = [
      'thanks a lot',
      'thank you',
      'more than that',
      'hat',
      'THE end',
      'acx adx',
      'x\nthis one',
      'aba',
      'tb',
    ];
    for (const text of texts) {
      expect(scan(patterns, text)).toEqual(patterns.map((pattern) => pattern.test(text)));
    }
  });

  it('answers like the patterns alone when only some branches of an m pattern use line anchors', () => {
    const patterns = [/\bcat\b|^dog$/m, /bird$/m, /fish|^eel/, /[$^]x/m];
    for (const text of ['a cat\nz', 'x\ndog\ny', 'bird\nz', 'z\neel', 'eel', 'a $x', 'dogs\nbirds']) {
      expect(scan(patterns, text)).toEqual(patterns.map((pattern) => pattern.test(text)));
    }
  });

  it('keeps entries that were already true', () => {
    const found = [true, false];
    createPatternSet([/zzz/, /a/]).scan('a', found);
    expect(found).toEqual([true, true]);
  });

  it('splits inside a group that spans the whole source, not inside one that does not', () => {
    expect(splitTopLevel('(?:a|(?:b|c))')).toEqual(['a', '(?:b|c)']);
    expect(splitTopLevel('(?:a|b)c|d')).toEqual(['(?:a|b)c', 'd']);
    expect(splitTopLevel('(?:a)|(?:b)')).toEqual(['(?:a)', '(?:b)']);
  });

  it('distributes a leading group over the rest of the branch', () => {
    expect(distributeGroup('\\b(?:a|b c)\\b')).toEqual(['\\ba\\b', '\\bb c\\b']);
    expect(distributeGroup('(?:a|(?:b|c)d)e')).toEqual(['ae', 'bde', 'cde']);
    expect(distributeGroup('(?:a|b)?c')).toEqual(['(?:a|b)?c']);
    expect(distributeGroup('a(?:b|c)')).toEqual(['a(?:b|c)']);
  });

  it('finds the literal start of a source only where it is certain', () => {
    expect(toLiteralPrefix('thanks', '', 2)).toBe('th');
    expect(toLiteralPrefix('캐시', '', 1)).toBe('캐');
    expect(toLiteralPrefix('t?hat', '', 2)).toBe('');
    expect(toLiteralPrefix('th?at', '', 2)).toBe('t');
    expect(toLiteralPrefix('a\\b', '', 2)).toBe('a');
    expect(toLiteralPrefix('\\d+', '', 2)).toBe('');
    expect(toLiteralPrefix('(?:a|b)', '', 2)).toBe('');
    expect(toLiteralPrefix('thanks', 'i', 2)).toBe('');
  });

  it('splits a source at top-level bars only', () => {
    expect(splitTopLevel('\\ba(?:b|c)|[|x]|\\||d')).toEqual(['\\ba(?:b|c)', '[|x]', '\\|', 'd']);
  });

  it('rejects global and sticky patterns, and backreferences', () => {
    expect(() => createPatternSet([/a/g])).toThrow(/must not be g or y/);
    expect(() => createPatternSet([/(a)\1/])).toThrow(/must not use backreferences/);
  });
});
