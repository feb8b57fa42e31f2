/**
 * Many regexes tested against one text in about one scan instead of one scan each (the local
 * stages must cost under 0.2 ms per request). The answer is exactly `patterns.map((p) => p.test(text))`.
 *
 * Every pattern is split into its top-level branches (`a|b|c`, and `\b(?:a|b)\b` into `\ba\b` and
 * `\bb\b`); the branches are joined into one global alternation per flag set (a branch without `^`
 * or `$` drops the `m` flag, which changes nothing else). Branches that start with
 * `\b` (or `^`) share one alternation behind a single leading `\b` (`^`), so the scan tries them only
 * where a word (a line) starts; branches that start with a non-ASCII letter (Hangul, Han, kana) share
 * one that is skipped on text without one of their first letters. Inside an alternation, the branches
 * that start with the same literal character sit behind one copy of it (`t(?:hanks|hank you)`) and
 * nothing captures, so at most positions the engine rejects them all after a few character tests. At
 * every position where the alternation matches, each pattern not yet found is tried there alone (a
 * sticky regex of its branches that can start with that character); the scan then resumes one character
 * later, so no match hidden inside another one is skipped.
 */
import {
  distributeGroup,
  hasLineAnchor,
  SHARED_PREFIXES,
  splitTopLevel,
  toLiteralPrefix,
} from './regex-source.js';

export interface PatternSet {
  /** `found[i]` is set to true when pattern i matches `text` (entries already true stay true). */
  scan(text: string, found: boolean[]): void;
  readonly size: number;
  /** Every regex a scan can run (alternations, gates, per-pattern tests): for the ReDoS check's test. */
  readonly regexes: readonly RegExp[];
}

interface Branch {
  /** Index of the pattern the branch belongs to. */
  owner: number;
  /** The branch source, with its leading `\b` when it had one. */
  source: string;
  flags: string;
}

/** One pattern's branches that can match where a given character stands, as one sticky regex. */
interface OwnerTest {
  owner: number;
  sticky: RegExp;
}

interface Alternation {
  /** Global; matches at every position where one of the branches matches. */
  scan: RegExp;
  /**
   * Set when every branch starts with a non-ASCII character: a text without one of the characters it
   * tests for cannot match.
   */
  gate: RegExp | undefined;
  /**
   * The tests to run where the scan matched, by the literal start of the branches they cover: per first
   * two code units (`firstTwo(a, b)`), else per first code unit, else `otherTests` (branches without a
   * literal first character). Each holds one test per pattern with a branch that can match there.
   */
  testsByTwo: ReadonlyMap<number, readonly OwnerTest[]>;
  testsByOne: ReadonlyMap<number, readonly OwnerTest[]>;
  otherTests: readonly OwnerTest[];
  /** The distinct owners of the branches. */
  owners: readonly number[];
}

/** Any character but printable ASCII, tab and line breaks: text without one cannot match a non-ASCII branch. */
const NON_ASCII = /[^ -~\t\n\r]/;
/** A numbered or named backreference (or, rarely, an escaped backslash before a digit: rejected too). */
const BACKREFERENCE = /\\(?:[1-9]|k<)/;
/** Buckets from which a non-ASCII scan starts with a lookahead of every first character. */
const LOOKAHEAD_BUCKETS = 8;
/** A source that starts with at least one digit (`\d`, `\d+`, not `\d*` or `\d?`). */
const DIGIT_START = /^\\d(?![?*{])/;
const DIGITS: readonly string[] = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];

interface BranchGroup {
  flags: string;
  /** The leading assertion every branch of the group starts with, or ''. */
  prefix: string;
  nonAscii: boolean;
  branches: Branch[];
}

export function createPatternSet(patterns: readonly RegExp[]): PatternSet {
  const branches = patterns.flatMap((pattern, owner) => {
    if (pattern.global || pattern.sticky) throw new Error(`pattern ${pattern.source} must not be g or y`);
    // branches are tested apart and regrouped, which renumbers capture groups
    if (BACKREFERENCE.test(pattern.source))
      throw new Error(`pattern ${pattern.source} must not use backreferences`);
    return splitTopLevel(pattern.source)
      .flatMap(distributeGroup)
      .map((source) => ({ owner, source, flags: toBranchFlags(source, pattern.flags) }));
  });
  const groups = new Map<string, BranchGroup>();
  for (const branch of branches) {
    const prefix = SHARED_PREFIXES.find((candidate) => branch.source.startsWith(candidate)) ?? '';
    const nonAscii = branch.source.charCodeAt(0) > 0x7f;
    const key = `${branch.flags}:${prefix}:${String(nonAscii)}`;
    const group = groups.get(key) ?? { flags: branch.flags, prefix, nonAscii, branches: [] };
    group.branches.push(branch);
    groups.set(key, group);
  }
  const alternations = [...groups.values()].map(toAlternation);
  return {
    scan: (text, found) => scanAll(alternations, text, found),
    size: patterns.length,
    regexes: alternations.flatMap(toRegexes),
  };
}

/** A branch without the group's prefix, with what is known about where it can start. */
interface Body {
  owner: number;
  source: string;
  /** Its literal first characters, at most two ('' when it starts with syntax). */
  start: string;
  /** True when it starts with at least one digit (`\d`). */
  digit: boolean;
}

/**
 * The flags a branch needs: `m` only changes `^` and `$`, so a branch without them drops it and joins
 * the alternation of the branches without `m`.
 */
function toBranchFlags(source: string, flags: string): string {
  return hasLineAnchor(source) ? flags : flags.replace('m', '');
}

function toAlternation(group: BranchGroup): Alternation {
  const { prefix, flags } = group;
  const bodies = group.branches.map(({ owner, source }): Body => {
    const body = source.slice(prefix.length);
    return { owner, source: body, start: toLiteralPrefix(body, flags, 2), digit: DIGIT_START.test(body) };
  });
  const buckets = toFirstCharBuckets(bodies);
  const scanParts = [...buckets].map(([first, list]) =>
    first === '' || list.length === 1
      ? list.map((body) => `(?:${body})`).join('|')
      : `${first}(?:${list.map((body) => body.slice(first.length)).join('|')})`,
  );
  const firstClass = group.nonAscii && !buckets.has('') ? `[${[...buckets.keys()].join('')}]` : undefined;
  const gate = !group.nonAscii ? undefined : firstClass === undefined ? NON_ASCII : new RegExp(firstClass);
  // Every position of Han or kana text is tried; with many buckets, one class test passes most
  // positions faster than trying each bucket's first character.
  const lookahead = firstClass === undefined || buckets.size < LOOKAHEAD_BUCKETS ? '' : `(?=${firstClass})`;
  const twos = new Set(bodies.flatMap(({ start }) => (start.length === 2 ? [start] : [])));
  const ones = new Set([...buckets.keys()].filter((first) => first !== ''));
  if (bodies.some(({ digit }) => digit)) for (const digit of DIGITS) ones.add(digit);
  const toTests = (start: string): OwnerTest[] => toOwnerTests(bodies, { ...group, start });
  return {
    scan: new RegExp(`${prefix}${lookahead}(?:${scanParts.join('|')})`, `${flags}g`),
    gate,
    testsByTwo: new Map([...twos].map((start) => [firstTwo(start, 0), toTests(start)])),
    testsByOne: new Map([...ones].map((start) => [start.charCodeAt(0), toTests(start)])),
    otherTests: toTests(''),
    owners: [...new Set(bodies.map(({ owner }) => owner))],
  };
}

function toRegexes({ scan, gate, testsByTwo, testsByOne, otherTests }: Alternation): RegExp[] {
  const tests = [...testsByTwo.values(), ...testsByOne.values(), otherTests].flat();
  return [scan, ...(gate === undefined ? [] : [gate]), ...tests.map(({ sticky }) => sticky)];
}

/** The first two code units of `text` at `index` as one number. */
function firstTwo(text: string, index: number): number {
  return text.charCodeAt(index) * 0x10000 + text.charCodeAt(index + 1);
}

/**
 * One sticky test per owner, of its branches that can match where the text starts with `start` (one
 * or two characters; '' for a character no branch starts with): those whose literal start is `start`
 * or a prefix of it, including '' (no literal first character), and those that start with a digit
 * when `start` does.
 */
function toOwnerTests(
  bodies: readonly Body[],
  { prefix, flags, start }: { prefix: string; flags: string; start: string },
): OwnerTest[] {
  const byOwner = new Map<number, string[]>();
  for (const body of bodies) {
    const fits = body.digit ? DIGITS.includes(start.slice(0, 1)) : start.startsWith(body.start);
    if (fits) byOwner.set(body.owner, [...(byOwner.get(body.owner) ?? []), body.source]);
  }
  return [...byOwner].map(([owner, list]) => ({
    owner,
    sticky: new RegExp(`${prefix}(?:${list.join('|')})`, `${flags}y`),
  }));
}

/** The body sources by the literal character they start with ('' for none), in first-seen order. */
function toFirstCharBuckets(bodies: readonly Body[]): Map<string, string[]> {
  const buckets = new Map<string, string[]>();
  for (const { source, start } of bodies) {
    const first = start.slice(0, 1);
    buckets.set(first, [...(buckets.get(first) ?? []), source]);
  }
  return buckets;
}

function scanAll(alternations: readonly Alternation[], text: string, found: boolean[]): void {
  for (const alternation of alternations) {
    if (alternation.gate === undefined || alternation.gate.test(text)) scanOne(alternation, text, found);
  }
}

function scanOne(alternation: Alternation, text: string, found: boolean[]): void {
  const { scan, testsByTwo, testsByOne, otherTests, owners } = alternation;
  let missing = 0;
  for (const owner of owners) if (found[owner] !== true) missing += 1;
  scan.lastIndex = 0;
  while (missing > 0) {
    const match = scan.exec(text);
    if (match === null) return;
    const position = match.index;
    const tests =
      testsByTwo.get(firstTwo(text, position)) ?? testsByOne.get(text.charCodeAt(position)) ?? otherTests;
    for (const { owner, sticky } of tests) {
      if (found[owner] === true) continue;
      sticky.lastIndex = position;
      if (sticky.test(text)) {
        found[owner] = true;
        missing -= 1;
      }
    }
    scan.lastIndex = position + 1;
  }
}
