import type { AST } from '@eslint-community/regexpp';
import {
  complementRanges,
  DIGITS,
  intersectRanges,
  LINE_TERMINATORS,
  toCharRanges,
  unionRanges,
  WHITE_SPACE,
  WORD,
  type CharRanges,
} from '../../src/patterns/char-ranges.js';

/** What a regex's flags change about the characters one of its classes matches. */
export interface CharSetFlags {
  ignoreCase: boolean;
  dotAll: boolean;
  /** `u` or `v`: the text is read as code points, not UTF-16 code units. */
  unicode: boolean;
}

/** Thrown for syntax the safety check does not model; the check then calls the regex unsafe. */
export class UnsupportedRegexError extends Error {}

/** Ranges longer than this are not case-folded code point by code point (they hold both cases anyway). */
const CASE_FOLD_LIMIT = 5000;

type SetNode =
  | AST.Character
  | AST.CharacterSet
  | AST.CharacterClass
  | AST.ExpressionCharacterClass
  | AST.CharacterClassRange
  | AST.ClassStringDisjunction
  | AST.ClassIntersection
  | AST.ClassSubtraction;

/**
 * The characters one regex element can match, as ranges. Unicode properties are enumerated once per
 * reader (`properties` is its memo), since a property's ranges are not in the regex source.
 */
export function createCharSetReader(flags: CharSetFlags): (node: SetNode) => CharRanges {
  const max = flags.unicode ? 0x10ffff : 0xffff;
  const properties = new Map<string, CharRanges>();
  const read = (node: SetNode): CharRanges => {
    switch (node.type) {
      case 'Character':
        return toCaseVariants([[node.value, node.value]], flags);
      case 'CharacterClassRange':
        return toCaseVariants([[node.min.value, node.max.value]], flags);
      case 'CharacterSet':
        return readCharacterSet(node, { flags, max, properties });
      case 'CharacterClass': {
        const union = unionRanges(node.elements.map(read));
        return node.negate ? complementRanges(union, max) : union;
      }
      case 'ExpressionCharacterClass': {
        const inner = read(node.expression);
        return node.negate ? complementRanges(inner, max) : inner;
      }
      case 'ClassIntersection':
        return intersectRanges(read(node.left), read(node.right));
      case 'ClassSubtraction':
        return intersectRanges(read(node.left), complementRanges(read(node.right), max));
      case 'ClassStringDisjunction':
        return readStringDisjunction(node, read);
    }
  };
  return read;
}

function readStringDisjunction(
  node: AST.ClassStringDisjunction,
  read: (node: AST.Character) => CharRanges,
): CharRanges {
  const single = node.alternatives.every((alternative) => alternative.elements.length === 1);
  if (!single) throw new UnsupportedRegexError('strings of several characters in a class (\\q{...})');
  return unionRanges(node.alternatives.flatMap((alternative) => alternative.elements.map(read)));
}

interface CharacterSetContext {
  flags: CharSetFlags;
  max: number;
  properties: Map<string, CharRanges>;
}

function readCharacterSet(
  node: AST.CharacterSet,
  { flags, max, properties }: CharacterSetContext,
): CharRanges {
  if (node.kind === 'any') return flags.dotAll ? [[0, max]] : complementRanges(LINE_TERMINATORS, max);
  const base = toEscapeSet(node, { flags, max, properties });
  return node.negate ? complementRanges(base, max) : base;
}

function toEscapeSet(
  node: AST.EscapeCharacterSet | AST.UnicodePropertyCharacterSet,
  { flags, properties }: CharacterSetContext,
): CharRanges {
  if (node.kind !== 'property') return toClassEscape(node.kind, flags);
  if (node.strings) throw new UnsupportedRegexError(`property of strings \\p{${node.key}}`);
  const name = node.value === null ? node.key : `${node.key}=${node.value}`;
  const known = properties.get(name);
  if (known !== undefined) return known;
  const ranges = enumerateProperty(name, flags.ignoreCase);
  properties.set(name, ranges);
  return ranges;
}

function toClassEscape(kind: 'digit' | 'space' | 'word', flags: CharSetFlags): CharRanges {
  if (kind === 'digit') return DIGITS;
  if (kind === 'space') return WHITE_SPACE;
  return flags.ignoreCase && flags.unicode ? toCharRanges([...WORD, [0x17f, 0x17f], [0x212a, 0x212a]]) : WORD;
}

/**
 * Properties already enumerated, by name and case flag. A pure function of those two over a bounded
 * set (the few hundred names and values the parser accepts), so the memo is kept for the process: the
 * patterns of a routing table's rules may use `\p{L}` in each of 200 rules, and without it
 * every check paid about 0.2 s for the enumeration alone.
 */
const ENUMERATED = new Map<string, CharRanges>();

/** Every code point with a Unicode property, found by testing each one (about 30-100 ms), once. */
function enumerateProperty(name: string, ignoreCase: boolean): CharRanges {
  const key = `${name}\u0000${ignoreCase ? 'i' : ''}`;
  const known = ENUMERATED.get(key);
  if (known !== undefined) return known;
  const ranges = enumerateCodePoints(name, ignoreCase);
  ENUMERATED.set(key, ranges);
  return ranges;
}

function enumerateCodePoints(name: string, ignoreCase: boolean): CharRanges {
  const test = new RegExp(`^\\p{${name}}$`, ignoreCase ? 'iu' : 'u');
  const pairs: [number, number][] = [];
  let start = -1;
  for (let code = 0; code <= 0x110000; code += 1) {
    const inside = code <= 0x10ffff && test.test(String.fromCodePoint(code));
    if (inside && start < 0) start = code;
    if (!inside && start >= 0) {
      pairs.push([start, code - 1]);
      start = -1;
    }
  }
  return pairs;
}

/** With `i`, each code point also stands for its simple lower and upper case. */
function toCaseVariants(pairs: readonly (readonly [number, number])[], flags: CharSetFlags): CharRanges {
  if (!flags.ignoreCase) return toCharRanges(pairs);
  const result: [number, number][] = pairs.map(([low, high]) => [low, high]);
  for (const [low, high] of pairs) {
    if (high - low > CASE_FOLD_LIMIT) continue;
    for (let code = low; code <= high; code += 1) {
      for (const variant of caseVariants(code, flags.unicode)) result.push([variant, variant]);
    }
  }
  return toCharRanges(result);
}

function caseVariants(code: number, unicode: boolean): number[] {
  const text = unicode ? String.fromCodePoint(code) : String.fromCharCode(code);
  const variants: number[] = [];
  for (const changed of [text.toLowerCase(), text.toUpperCase()]) {
    const single = unicode ? [...changed].length === 1 : changed.length === 1;
    if (single) variants.push(unicode ? (changed.codePointAt(0) ?? code) : changed.charCodeAt(0));
  }
  return variants;
}
