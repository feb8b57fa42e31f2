/**
 * Many regexes tested against one text in about one scan instead of one scan each (issue 3: the local
 * stages must cost under 0.2 ms per request). The answer is exactly `patterns.map((p) => p.test(text))`.
 *
 * Every pattern is split into its top-level branches (`a|b|c`, and `\b(?:a|b)\b` into `\ba\b` and
 * `\bb\b`); the branches are joined into one global alternation per flag set. Branches that start with
 * `\b` (or `^`) share one alternation behind a single leading `\b` (`^`), so the scan tries them only
 * where a word (a line) starts; branches that start with a non-ASCII letter (Hangul, Han, kana) share
 * one that is skipped on text without one of their first letters. Inside an alternation, the branches
 * that start with the same literal character sit behind one copy of it (`t(?:hanks|hank you)`) and
 * nothing captures, so at most positions the engine rejects them all after a few character tests. At
 * every position where the alternation matches, each pattern not yet found is tried there alone (a
 * sticky regex of its branches that can start with that character); the scan then resumes one character
 * later, so no match hidden inside another one is skipped.
 */
export interface PatternSet {
  /** `found[i]` is set to true when pattern i matches `text` (entries already true stay true). */
  scan(text: string, found: boolean[]): void;
  readonly size: number;
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
  /** Per first code unit of a match, one test per pattern that has a branch able to start with it. */
  tests: ReadonlyMap<number, readonly OwnerTest[]>;
  /** The tests for any other code unit: the branches without a literal first character. */
  otherTests: readonly OwnerTest[];
  /** The distinct owners of the branches. */
  owners: readonly number[];
}

/** Leading assertions that branches share behind one copy: a word edge, or a line or text start. */
const SHARED_PREFIXES = ['\\b', '^'] as const;
/** Any character but printable ASCII, tab and line breaks: text without one cannot match a non-ASCII branch. */
const NON_ASCII = /[^ -~\t\n\r]/;
/** A numbered or named backreference (or, rarely, an escaped backslash before a digit: rejected too). */
const BACKREFERENCE = /\\(?:[1-9]|k<)/;
/** Regex syntax that makes the character before it optional or repeated. */
const QUANTIFIERS = new Set(['?', '*', '+', '{']);
/** Regex syntax characters: a source starting with one of these does not start with a literal. */
const SYNTAX = new Set(['\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}']);

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
      .map((source) => ({ owner, source, flags: pattern.flags }));
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
  return { scan: (text, found) => scanAll(alternations, text, found), size: patterns.length };
}

function toAlternation(group: BranchGroup): Alternation {
  const { prefix, flags } = group;
  const buckets = toFirstCharBuckets(group);
  const scanParts = [...buckets].map(([first, bodies]) =>
    first === '' || bodies.length === 1
      ? bodies.map((body) => `(?:${body})`).join('|')
      : `${first}(?:${bodies.map((body) => body.slice(first.length)).join('|')})`,
  );
  const others = buckets.get('') ?? [];
  const gate = !group.nonAscii
    ? undefined
    : others.length > 0
      ? NON_ASCII
      : new RegExp(`[${[...buckets.keys()].join('')}]`);
  const toTests = (first: string): OwnerTest[] => toOwnerTests(group, first);
  return {
    scan: new RegExp(`${prefix}(?:${scanParts.join('|')})`, `${flags}g`),
    gate,
    tests: new Map(
      [...buckets.keys()]
        .filter((first) => first !== '')
        .map((first) => [first.charCodeAt(0), toTests(first)]),
    ),
    otherTests: toTests(''),
    owners: [...new Set(group.branches.map(({ owner }) => owner))],
  };
}

/**
 * One sticky test per owner, of its branches that can match where `first` stands: those starting with
 * it and those without a literal first character ('' gives only the latter).
 */
function toOwnerTests(group: BranchGroup, first: string): OwnerTest[] {
  const bodies = new Map<number, string[]>();
  for (const { owner, source } of group.branches) {
    const body = source.slice(group.prefix.length);
    const literal = toLiteralFirst(body, group.flags);
    if (literal !== '' && literal !== first) continue;
    bodies.set(owner, [...(bodies.get(owner) ?? []), body]);
  }
  return [...bodies].map(([owner, list]) => ({
    owner,
    sticky: new RegExp(`${group.prefix}(?:${list.join('|')})`, `${group.flags}y`),
  }));
}

/** The bodies (branches without the group's prefix) by the literal character they start with ('' for none). */
function toFirstCharBuckets(group: BranchGroup): Map<string, string[]> {
  const buckets = new Map<string, string[]>();
  for (const { source } of group.branches) {
    const body = source.slice(group.prefix.length);
    const first = toLiteralFirst(body, group.flags);
    buckets.set(first, [...(buckets.get(first) ?? []), body]);
  }
  return buckets;
}

/**
 * The literal character a regex source starts with, or '' when it starts with syntax or an optional
 * or repeated character; always '' with the `i` flag (the character stands for two) and the `u` or
 * `v` flag (a character outside the BMP is one unit, not two).
 */
export function toLiteralFirst(source: string, flags: string): string {
  const first = source[0];
  if (first === undefined || SYNTAX.has(first) || QUANTIFIERS.has(source[1] ?? '')) return '';
  return /[iuv]/.test(flags) ? '' : first;
}

/**
 * A branch `P(?:a|b)S`, with P a shared prefix or nothing, as the branches `PaS` and `PbS`: together
 * they match exactly where it does, and each starts with its own first character.
 */
export function distributeGroup(source: string): string[] {
  const prefix = SHARED_PREFIXES.find((candidate) => source.startsWith(candidate)) ?? '';
  const group = toLeadingGroup(source.slice(prefix.length));
  if (group === undefined || QUANTIFIERS.has(group.rest[0] ?? '')) return [source];
  return splitBranches(group.inner).map((branch) => `${prefix}${branch}${group.rest}`);
}

/**
 * The branches of a regex source: split at every `|` outside groups, character classes and escapes;
 * a source that is one non-capturing group as a whole (`anyOf`) is split inside it.
 */
export function splitTopLevel(source: string): string[] {
  const inner = unwrapGroup(source);
  return inner === undefined ? splitBranches(source) : splitTopLevel(inner);
}

/**
 * Walks a regex source outside escapes and character classes, calling `visit` with each `)` and
 * `|` and the group depth after it; stops when `visit` returns true.
 */
function scanStructure(
  source: string,
  visit: (char: ')' | '|', index: number, depth: number) => boolean,
): void {
  let depth = 0;
  let inClass = false;
  for (let index = 0; index < source.length; index += 1) {
    const char = source[index];
    if (char === '\\') index += 1;
    else if (inClass) inClass = char !== ']';
    else if (char === '[') inClass = true;
    else if (char === '(') depth += 1;
    else if (char === ')') {
      depth -= 1;
      if (visit(char, index, depth)) return;
    } else if (char === '|' && visit(char, index, depth)) return;
  }
}

/** The inside of `(?:...)` when that group spans the whole source. */
function unwrapGroup(source: string): string | undefined {
  const group = toLeadingGroup(source);
  return group?.rest === '' ? group.inner : undefined;
}

/** The inside of the `(?:...)` group a source starts with, and what follows that group. */
function toLeadingGroup(source: string): { inner: string; rest: string } | undefined {
  if (!source.startsWith('(?:')) return undefined;
  let group: { inner: string; rest: string } | undefined;
  scanStructure(source, (char, index, depth) => {
    if (char !== ')' || depth !== 0) return false;
    group = { inner: source.slice(3, index), rest: source.slice(index + 1) };
    return true;
  });
  return group;
}

function splitBranches(source: string): string[] {
  const branches: string[] = [];
  let start = 0;
  scanStructure(source, (char, index, depth) => {
    if (char === '|' && depth === 0) {
      branches.push(source.slice(start, index));
      start = index + 1;
    }
    return false;
  });
  branches.push(source.slice(start));
  return branches;
}

function scanAll(alternations: readonly Alternation[], text: string, found: boolean[]): void {
  for (const alternation of alternations) {
    if (alternation.gate === undefined || alternation.gate.test(text)) scanOne(alternation, text, found);
  }
}

function scanOne({ scan, tests, otherTests, owners }: Alternation, text: string, found: boolean[]): void {
  let missing = 0;
  for (const owner of owners) if (found[owner] !== true) missing += 1;
  scan.lastIndex = 0;
  while (missing > 0) {
    const match = scan.exec(text);
    if (match === null) return;
    const position = match.index;
    for (const { owner, sticky } of tests.get(text.charCodeAt(position)) ?? otherTests) {
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
