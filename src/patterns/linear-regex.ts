import { RegExpParser, type AST } from '@eslint-community/regexpp';
import { RE2JS } from 're2js';
import { complementRanges, MAX_CODE_POINT, WHITE_SPACE } from './char-ranges.js';

/**
 * Operator regexes (routing-table rule patterns) run on RE2 (re2js, a pure-JS port): its automaton
 * reads each character of the text a bounded number of times, so no pattern can backtrack, whatever its
 * shape (`(?:ha|haha){1,16}!` took 15.6 s on V8 over 64 KiB of `ha`).
 *
 * A pattern is written and parsed as a JavaScript regex (flags i, m, s, u) and translated to RE2 syntax
 * with the same meaning: `\s` is JavaScript's whitespace (Unicode spaces, U+FEFF), `.` stops at
 * `\n`, `\r`, U+2028 and U+2029 unless `s`, `^`/`$` without `m` are the text's ends, `\d`, `\w`, `\b` are
 * ASCII. Differences, documented in docs/classifier-rules.md: matching is by code point (as with `u`),
 * case-insensitive matching folds as `iu` does (`k` also matches U+212A KELVIN SIGN), and with `m`, `^`
 * and `$` see lines ending at `\n` only. Lookaround and backreferences have no linear-time engine and are
 * refused, as is a Unicode property RE2 lacks (RE2 knows general categories and scripts by short name).
 */
export interface LinearRegex {
  /** True when the pattern matches somewhere in `text` (as `RegExp.prototype.test` without `g`). */
  test(text: string): boolean;
}

/** A pattern that cannot run in linear time, or that RE2 cannot express; `message` says which part. */
export class RefusedPatternError extends Error {
  override readonly name = 'RefusedPatternError';
}

interface Flags {
  ignoreCase: boolean;
  multiline: boolean;
  dotAll: boolean;
}

const ALPHANUMERIC = /^[A-Za-z0-9]$/;

function toCharSource(codePoint: number): string {
  if (codePoint >= 0xd800 && codePoint <= 0xdfff)
    throw new RefusedPatternError(
      `a lone surrogate (U+${codePoint.toString(16).toUpperCase()}) matches nothing in RE2, which reads code points; write an astral character under a quantifier or in a range with the u flag`,
    );
  const char = String.fromCodePoint(codePoint);
  return ALPHANUMERIC.test(char) ? char : `\\x{${codePoint.toString(16)}}`;
}

/** ASCII letters whose simple case folding (as `iu` reads it) has a third member. */
const EXTRA_FOLDS: Readonly<Record<string, number>> = { k: 0x212a, s: 0x17f };
const ASCII_LETTER = /^[A-Za-z]$/;

/**
 * A character under `i`. ASCII letters become a class of their case variants (re2js runs a
 * case-insensitive literal about 15 times slower than the class); other cased characters are left to
 * RE2's folding in a `(?i:…)` group.
 */
function toFoldedCharSource(codePoint: number): string {
  const char = String.fromCodePoint(codePoint);
  if (ASCII_LETTER.test(char)) {
    const lower = char.toLowerCase();
    const extra = EXTRA_FOLDS[lower];
    return `[${lower}${lower.toUpperCase()}${extra === undefined ? '' : toCharSource(extra)}]`;
  }
  const source = toCharSource(codePoint);
  return char.toLowerCase() === char.toUpperCase() ? source : `(?i:${source})`;
}

function toRangesSource(ranges: readonly (readonly [number, number])[]): string {
  return ranges
    .map(([low, high]) => (low === high ? toCharSource(low) : `${toCharSource(low)}-${toCharSource(high)}`))
    .join('');
}

const SPACE = toRangesSource(WHITE_SPACE);
const NOT_SPACE = toRangesSource(complementRanges(WHITE_SPACE, MAX_CODE_POINT));
const ANY = `[\\x{0}-\\x{${MAX_CODE_POINT.toString(16)}}]`;
const NOTHING = `[^\\x{0}-\\x{${MAX_CODE_POINT.toString(16)}}]`;
const NOT_LINE_END = '[^\\x{a}\\x{d}\\x{2028}\\x{2029}]';

function refuse(node: AST.Node, what: string): never {
  throw new RefusedPatternError(`${what} (\`${node.raw}\` at ${node.start})`);
}

/** `\d`, `\s`, `\w`, `\p{…}` and their negations, inside a class (`inClass`) or alone. */
function toSetSource(
  node: AST.EscapeCharacterSet | AST.UnicodePropertyCharacterSet,
  inClass: boolean,
): string {
  switch (node.kind) {
    case 'digit':
      return node.negate ? '\\D' : '\\d';
    case 'word':
      return node.negate ? '\\W' : '\\w';
    case 'space':
      if (inClass) return node.negate ? NOT_SPACE : SPACE;
      return node.negate ? `[${NOT_SPACE}]` : `[${SPACE}]`;
    case 'property': {
      if (node.strings) refuse(node, 'a property of strings has no RE2 form');
      if (node.key !== 'General_Category' && node.key !== 'Script')
        refuse(node, 'RE2 knows general categories (\\p{L}) and scripts (\\p{Greek}) only');
      const name = node.value ?? node.key;
      return `\\${node.negate ? 'P' : 'p'}{${name}}`;
    }
  }
}

function isHighSurrogate(node: AST.Node | undefined): node is AST.Character {
  return node?.type === 'Character' && node.value >= 0xd800 && node.value <= 0xdbff;
}
function isLowSurrogate(node: AST.Node | undefined): node is AST.Character {
  return node?.type === 'Character' && node.value >= 0xdc00 && node.value <= 0xdfff;
}

/**
 * Characters and class parts in order; a surrogate pair written as two characters (a pattern without
 * `u`) is read as its code point, since RE2 matches code points.
 */
function toSequenceSource<T extends AST.Node>(nodes: readonly T[], emit: (node: T) => string): string {
  let source = '';
  for (let index = 0; index < nodes.length; index += 1) {
    const node = nodes[index];
    const next = nodes[index + 1];
    if (isHighSurrogate(node) && isLowSurrogate(next)) {
      source += toCharSource(0x10000 + ((node.value - 0xd800) << 10) + (next.value - 0xdc00));
      index += 1;
    } else if (node !== undefined) source += emit(node);
  }
  return source;
}

function toClassElementSource(element: AST.CharacterClassElement): string {
  switch (element.type) {
    case 'Character':
      return toCharSource(element.value);
    case 'CharacterClassRange':
      return `${toCharSource(element.min.value)}-${toCharSource(element.max.value)}`;
    case 'CharacterSet':
      return toSetSource(element, true);
    case 'CharacterClass':
    case 'ClassStringDisjunction':
    case 'ExpressionCharacterClass':
      return refuse(element, 'set operations of the v flag are not supported');
  }
}

function toClassSource(node: AST.CharacterClass | AST.ExpressionCharacterClass, flags: Flags): string {
  if (node.type === 'ExpressionCharacterClass') return refuse(node, 'the v flag is not supported');
  if (node.elements.length === 0) return node.negate ? ANY : NOTHING;
  const source = `[${node.negate ? '^' : ''}${toSequenceSource(node.elements, toClassElementSource)}]`;
  return flags.ignoreCase ? `(?i:${source})` : source;
}

function toAssertionSource(node: AST.Assertion, flags: Flags): string {
  switch (node.kind) {
    case 'start':
      return flags.multiline ? '(?m:^)' : '\\A';
    case 'end':
      return flags.multiline ? '(?m:$)' : '\\z';
    case 'word':
      return node.negate ? '\\B' : '\\b';
    case 'lookahead':
    case 'lookbehind':
      return refuse(node, 'lookaround has no linear-time engine; match the text itself or use two rules');
  }
}

function toQuantifierSource(node: AST.Quantifier, flags: Flags): string {
  const { min, max } = node;
  const count =
    max === Infinity
      ? min === 0
        ? '*'
        : min === 1
          ? '+'
          : `{${min},}`
      : min === 0 && max === 1
        ? '?'
        : min === max
          ? `{${min}}`
          : `{${min},${max}}`;
  return `(?:${toElementSource(node.element, flags)})${count}${node.greedy ? '' : '?'}`;
}

function toGroupSource(node: AST.Group, flags: Flags): string {
  const { modifiers } = node;
  if (modifiers === undefined || modifiers === null)
    return `(?:${toAlternativesSource(node.alternatives, flags)})`;
  const inner: Flags = { ...flags };
  for (const [set, on] of [
    [modifiers.add, true],
    [modifiers.remove, false],
  ] as const) {
    if (set === null) continue;
    if (set.ignoreCase) inner.ignoreCase = on;
    if (set.multiline) inner.multiline = on;
    if (set.dotAll) inner.dotAll = on;
  }
  return `(?:${toAlternativesSource(node.alternatives, inner)})`;
}

function toElementSource(node: AST.Element, flags: Flags): string {
  switch (node.type) {
    case 'Character':
      return flags.ignoreCase ? toFoldedCharSource(node.value) : toCharSource(node.value);
    case 'CharacterSet':
      if (node.kind === 'any') return flags.dotAll ? ANY : NOT_LINE_END;
      if (node.kind === 'property' && flags.ignoreCase) return `(?i:${toSetSource(node, false)})`;
      return toSetSource(node, false);
    case 'CharacterClass':
    case 'ExpressionCharacterClass':
      return toClassSource(node, flags);
    case 'Assertion':
      return toAssertionSource(node, flags);
    case 'Quantifier':
      return toQuantifierSource(node, flags);
    case 'Group':
      return toGroupSource(node, flags);
    case 'CapturingGroup':
      return `(?:${toAlternativesSource(node.alternatives, flags)})`;
    case 'Backreference':
      return refuse(node, 'a backreference has no linear-time engine');
  }
}

function toAlternativesSource(alternatives: readonly AST.Alternative[], flags: Flags): string {
  return alternatives
    .map((alternative) => toSequenceSource(alternative.elements, (node) => toElementSource(node, flags)))
    .join('|');
}

/** The RE2 source (no RE2 flags) meaning what the JavaScript `source` with `flags` means (see above). */
export function toRe2Source(source: string, flags: string): string {
  const parser = new RegExpParser({ ecmaVersion: 2025 });
  let pattern: AST.Pattern;
  let parsed: AST.Flags;
  try {
    parsed = parser.parseFlags(flags);
    pattern = parser.parsePattern(source, 0, source.length, { unicode: parsed.unicode });
  } catch (error) {
    throw new RefusedPatternError(`not a valid regex: ${(error as Error).message}`);
  }
  if (parsed.global || parsed.sticky || parsed.hasIndices || parsed.unicodeSets)
    throw new RefusedPatternError('flags g, y, d and v are not supported');
  const context: Flags = {
    ignoreCase: parsed.ignoreCase,
    multiline: parsed.multiline,
    dotAll: parsed.dotAll,
  };
  return toAlternativesSource(pattern.alternatives, context);
}

/** Compiles an operator's JavaScript regex to run on RE2; throws RefusedPatternError saying why not. */
export function compileLinearRegex(source: string, flags: string): LinearRegex {
  const translated = toRe2Source(source, flags);
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(translated);
  } catch (error) {
    throw new RefusedPatternError(`RE2 cannot run it: ${(error as Error).message}`);
  }
  return { test: (text) => compiled.test(text) };
}
