import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileLinearRegex, RefusedPatternError } from './linear-regex.js';

const matches = (pattern: string, flags: string, text: string): boolean =>
  compileLinearRegex(pattern, flags).test(text);

describe('operator regexes on RE2', () => {
  it('keeps JavaScript meanings RE2 spells differently: \\s, dot, anchors, escapes', () => {
    expect(matches('a\\sb', '', 'a\u00a0b')).toBe(true);
    expect(matches('a\\sb', '', 'a\ufeffb')).toBe(true);
    expect(matches('a[^\\S]b', '', 'a\u3000b')).toBe(true);
    expect(matches('a.b', '', 'a\rb')).toBe(false);
    expect(matches('a.b', 's', 'a\nb')).toBe(true);
    expect(matches('^b', '', 'a\nb')).toBe(false);
    expect(matches('^b', 'm', 'a\nb')).toBe(true);
    expect(matches('a$', '', 'a\n')).toBe(false);
    expect(matches('\\u00e9|\\cA', '', '\u0001')).toBe(true);
    expect(matches('caf\\u{e9}', 'u', 'café')).toBe(true);
    expect(matches('[^]', '', '\n')).toBe(true);
    expect(matches('[]', '', 'anything')).toBe(false);
    expect(matches('\\bterm\\b', 'i', 'a TERM here')).toBe(true);
    expect(matches('(?<word>x)y', '', 'xy')).toBe(true);
    expect(matches('(?i:step)X', '', 'STEPX')).toBe(true);
    expect(matches('(?i:step)X', '', 'STEPx')).toBe(false);
    expect(matches('😀', '', 'a😀😀')).toBe(true);
    expect(matches('[😀]', '', '😀')).toBe(true);
    expect(matches('😀+', 'u', 'a😀😀')).toBe(true);
    expect(matches('\\p{Script=Greek}{2}', 'u', 'αβ')).toBe(true);
    expect(matches('\\p{Lu}', 'u', 'abc')).toBe(false);
  });

  it.each([
    ['(a)\\1', '', 'backreference'],
    ['(?=a)b', '', 'lookaround'],
    ['(?<!a)b', '', 'lookaround'],
    ['\\p{Emoji}', 'u', 'general categories'],
    ['a{1001}', '', 'RE2 cannot run it'],
    ['(', '', 'not a valid regex'],
    ['😀+', '', 'lone surrogate'],
    ['a', 'g', 'flags g'],
  ])('refuses %s (%s) saying why', (pattern, flags, why) => {
    expect(() => compileLinearRegex(pattern, flags)).toThrow(RefusedPatternError);
    expect(() => compileLinearRegex(pattern, flags)).toThrow(why);
  });

  const atom = fc.constantFrom(
    'a',
    'b',
    'A',
    ' ',
    '\\s',
    '\\S',
    '\\d',
    '\\w',
    '\\W',
    '.',
    '[ab]',
    '[^a\\s]',
    '[\\d_]',
    '\\.',
    '\\u00e9',
    '\\n',
  );
  const pattern: fc.Arbitrary<string> = fc.letrec<{ node: string }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      atom,
      fc.tuple(tie('node'), tie('node')).map(([left, right]) => `${left}${right}`),
      fc.tuple(tie('node'), tie('node')).map(([left, right]) => `(?:${left}|${right})`),
      fc
        .tuple(tie('node'), fc.constantFrom('*', '+', '?', '{1,3}', '{2}', '*?'))
        .map(([inner, count]) => `(?:${inner})${count}`),
      fc
        .tuple(fc.constantFrom('^', '\\b', '\\B', '$'), tie('node'))
        .map(([anchor, inner]) => `${anchor}${inner}`),
    ),
  })).node;
  // Texts without the characters whose reading is documented to differ (\r and U+2028 under `m`,
  // case folds that only `iu` knows, astral characters under a pattern without `u`).
  const text = fc
    .array(fc.constantFrom('a', 'b', 'A', 'B', ' ', '\u00a0', '\n', '\t', '1', '_', 'é', 'É', '.', '-'), {
      maxLength: 12,
    })
    .map((chars) => chars.join(''));

  it('answers as V8 does on generated patterns, flags and texts', () => {
    fc.assert(
      fc.property(
        pattern,
        fc.subarray(['i', 'm', 's', 'u']),
        fc.array(text, { minLength: 1, maxLength: 5 }),
        (source, flagList, texts) => {
          const flags = flagList.join('');
          const linear = compileLinearRegex(source, flags);
          const native = new RegExp(source, flags);
          for (const sample of texts)
            expect(linear.test(sample), `/${source}/${flags} on ${JSON.stringify(sample)}`).toBe(
              native.test(sample),
            );
        },
      ),
      { numRuns: 400 },
    );
  });
});
