import type { AST } from '@eslint-community/regexpp';
import type { CharRanges } from '../../src/patterns/char-ranges.js';
import { createCharSetReader, UnsupportedRegexError, type CharSetFlags } from './regex-char-sets.js';

/**
 * The position (Glushkov) automaton of a regex: one state per character-matching element of the
 * source, with bounded repeats unrolled, so two ways of matching the same text are two paths. A
 * backtracking engine explores every path before it gives up, which is what `regex-ambiguity.ts` counts.
 * Assertions (`\b`, `$`, lookarounds, `^` inside the pattern) are treated as always passing: that can
 * only add paths, so the check errs on the unsafe side. Lookaround bodies are checked as regexes of their own.
 */
export interface PositionAutomaton {
  /** Characters each position matches. */
  sets: CharRanges[];
  /** Positions that can match right after each position. */
  follow: number[][];
  /**
   * True for a position after which the rest of the regex can match the empty string without passing
   * an assertion: a path that reaches it ends the search with a match, so it is never backtracked into.
   */
  sure: boolean[];
  /** Positions a match can start with, wherever the engine tries a match. */
  first: number[];
  /** Positions a match can start with only at the start of a line (an alternative starting with `^` and `m`). */
  lineFirst: number[];
  /** Bodies of lookarounds; `reverse` for lookbehinds, which the engine matches right to left. */
  lookarounds: { alternatives: readonly AST.Alternative[]; reverse: boolean }[];
  maxChar: number;
}

/** The flags that change what a regex matches or where the engine tries it. */
export type RegexFlags = Pick<
  AST.Flags,
  'ignoreCase' | 'multiline' | 'dotAll' | 'unicode' | 'unicodeSets' | 'sticky'
>;

export interface AutomatonOptions {
  flags: RegexFlags;
  /** More positions than this throw `TooLargeError`. */
  maxPositions: number;
  /**
   * Bounded repeats with a higher maximum are read as unbounded (`x{2,500}` as `x+`): fewer positions,
   * and more paths, never fewer.
   */
  unrollLimit: number;
  reverse?: boolean;
}

export class TooLargeError extends Error {}

/** What one element contributes: where it starts and ends, and whether it can match nothing. */
interface Fragment {
  first: number[];
  last: number[];
  /** Ends after which the rest of the fragment matched without an assertion. */
  lastSure: number[];
  nullable: boolean;
  /** Can match the empty string without passing an assertion. */
  nullableSure: boolean;
}

const EMPTY: Fragment = { first: [], last: [], lastSure: [], nullable: true, nullableSure: true };
const ASSERTION: Fragment = { ...EMPTY, nullableSure: false };

export function buildPositionAutomaton(
  alternatives: readonly AST.Alternative[],
  options: AutomatonOptions,
): PositionAutomaton {
  const { flags } = options;
  const charFlags: CharSetFlags = {
    ignoreCase: flags.ignoreCase,
    dotAll: flags.dotAll,
    unicode: flags.unicode || flags.unicodeSets,
  };
  const automaton: PositionAutomaton = {
    sets: [],
    follow: [],
    sure: [],
    first: [],
    lineFirst: [],
    lookarounds: [],
    maxChar: charFlags.unicode ? 0x10ffff : 0xffff,
  };
  const builder = createBuilder(automaton, { ...options, readSet: createCharSetReader(charFlags) });
  const ends: Fragment[] = [];
  for (const alternative of unwrapTopLevel(alternatives)) {
    const [head, ...rest] = alternative.elements;
    const anchored = head?.type === 'Assertion' && head.kind === 'start' && options.reverse !== true;
    const fragment = builder.sequence(anchored ? rest : alternative.elements);
    ends.push(fragment);
    if (!anchored && !flags.sticky) automaton.first.push(...fragment.first);
    else if (anchored && flags.multiline && !flags.sticky) automaton.lineFirst.push(...fragment.first);
  }
  for (const position of ends.flatMap((fragment) => fragment.lastSure)) automaton.sure[position] = true;
  return automaton;
}

/** The alternatives of a pattern that is one group as a whole (`(?:a|b)`), at any depth. */
function unwrapTopLevel(alternatives: readonly AST.Alternative[]): readonly AST.Alternative[] {
  const only = alternatives.length === 1 ? alternatives[0]?.elements : undefined;
  const group = only?.length === 1 ? only[0] : undefined;
  if (group?.type === 'Group' || group?.type === 'CapturingGroup') return unwrapTopLevel(group.alternatives);
  return alternatives;
}

interface Builder {
  sequence(elements: readonly AST.Element[]): Fragment;
}

function createBuilder(
  automaton: PositionAutomaton,
  options: AutomatonOptions & { readSet: ReturnType<typeof createCharSetReader> },
): Builder {
  const link = (from: readonly number[], to: readonly number[]): void => {
    for (const position of from) automaton.follow[position]?.push(...to);
  };
  const position = (set: CharRanges): Fragment => {
    const index = automaton.sets.length;
    if (index >= options.maxPositions) throw new TooLargeError(`more than ${options.maxPositions} positions`);
    automaton.sets.push(set);
    automaton.follow.push([]);
    automaton.sure.push(false);
    const own = [index];
    return { first: own, last: own, lastSure: own, nullable: false, nullableSure: false };
  };
  const concat = (a: Fragment, b: Fragment): Fragment => {
    link(a.last, b.first);
    return {
      first: a.nullable ? [...a.first, ...b.first] : a.first,
      last: b.nullable ? [...a.last, ...b.last] : b.last,
      lastSure: b.nullableSure ? [...a.lastSure, ...b.lastSure] : b.lastSure,
      nullable: a.nullable && b.nullable,
      nullableSure: a.nullableSure && b.nullableSure,
    };
  };
  const choice = (fragments: readonly Fragment[]): Fragment => ({
    first: fragments.flatMap((fragment) => fragment.first),
    last: fragments.flatMap((fragment) => fragment.last),
    lastSure: fragments.flatMap((fragment) => fragment.lastSure),
    nullable: fragments.some((fragment) => fragment.nullable),
    nullableSure: fragments.some((fragment) => fragment.nullableSure),
  });
  const optional = (fragment: Fragment): Fragment => ({ ...fragment, nullable: true, nullableSure: true });
  const ordered = <T>(items: readonly T[]): readonly T[] =>
    options.reverse === true ? [...items].reverse() : items;

  const sequence = (elements: readonly AST.Element[]): Fragment =>
    ordered(elements).reduce<Fragment>((fragment, element) => concat(fragment, build(element)), EMPTY);
  const alternatives = (list: readonly AST.Alternative[]): Fragment =>
    choice(list.map((alternative) => sequence(alternative.elements)));

  const repeat = (node: AST.Quantifier): Fragment => {
    const unbounded = node.max === Infinity || node.max > options.unrollLimit;
    const min = unbounded ? Math.min(node.min, options.unrollLimit, 1) : node.min;
    if (unbounded) {
      const copies = Array.from({ length: Math.max(min, 1) }, () => build(node.element));
      const looped = copies[copies.length - 1] ?? EMPTY;
      link(looped.last, looped.first);
      const whole = copies.reduce(concat, EMPTY);
      return min === 0 ? optional(whole) : whole;
    }
    const required = Array.from({ length: min }, () => build(node.element)).reduce(concat, EMPTY);
    const extra = Array.from({ length: node.max - min }, () => build(node.element));
    // x{0,3} as (x(x(x)?)?)?: each optional copy follows only the one before it
    const nested = extra.reduceRight<Fragment>((inner, copy) => optional(concat(copy, inner)), EMPTY);
    return concat(required, nested);
  };

  const build = (node: AST.Element): Fragment => {
    switch (node.type) {
      case 'Character':
      case 'CharacterSet':
      case 'CharacterClass':
      case 'ExpressionCharacterClass':
        return position(options.readSet(node));
      case 'Group':
        // (?i:...) changes which characters match inside; not modelled
        if (node.modifiers !== null) throw new UnsupportedRegexError('inline flag modifiers');
        return alternatives(node.alternatives);
      case 'CapturingGroup':
        return alternatives(node.alternatives);
      case 'Quantifier':
        return repeat(node);
      case 'Assertion':
        if (node.kind === 'lookahead' || node.kind === 'lookbehind') {
          automaton.lookarounds.push({
            alternatives: node.alternatives,
            reverse: node.kind === 'lookbehind',
          });
        }
        return ASSERTION;
      case 'Backreference':
        throw new UnsupportedRegexError('backreferences');
    }
  };
  return { sequence };
}
