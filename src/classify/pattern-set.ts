/**
 * Many regexes tested against one text in about one scan instead of one scan each (issue 3: the local
 * stages must cost under 0.2 ms per request). The answer is exactly `patterns.map((p) => p.test(text))`.
 *
 * Every pattern is split into its top-level branches (`a|b|c`); the branches are joined into one global
 * alternation per flag set, each wrapped in a capturing group. Branches that start with `\b` (or `^`)
 * share one alternation behind a single leading `\b` (`^`), so the scan tries them only where a word
 * (a line) starts; branches that start with a non-ASCII letter (Hangul, Han, kana) share one that is
 * skipped on ASCII text. At every
 * position where an alternation matches, the branch that won is the first one that matches there, so
 * only the later branches of patterns not yet found are tried at that position, with sticky copies; the
 * scan then resumes one character later, so no match hidden inside another one is skipped.
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

interface Member {
  owner: number;
  /** Number of the branch's capture group in the alternation. */
  group: number;
  sticky: RegExp;
}

interface Alternation {
  combined: RegExp;
  /** Every branch starts with a non-ASCII character, so ASCII text cannot match. */
  nonAscii: boolean;
  members: readonly Member[];
  /** The distinct owners of the members. */
  owners: readonly number[];
}

/** Leading assertions that branches share behind one copy: a word edge, or a line or text start. */
const SHARED_PREFIXES = ['\\b', '^'] as const;
/** Any character but printable ASCII, tab and line breaks: text without one cannot match a non-ASCII branch. */
const NON_ASCII = /[^ -~\t\n\r]/;

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
    return splitTopLevel(pattern.source).map((source) => ({ owner, source, flags: pattern.flags }));
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
  let number = 1;
  const parts: string[] = [];
  const members = group.branches.map(({ owner, source }) => {
    const body = source.slice(group.prefix.length);
    parts.push(`(${body})`);
    const member = { owner, group: number, sticky: new RegExp(source, `${group.flags}y`) };
    number += 1 + countGroups(body);
    return member;
  });
  const joined = parts.join('|');
  const source = group.prefix === '' ? joined : `${group.prefix}(?:${joined})`;
  const owners = [...new Set(members.map(({ owner }) => owner))];
  return { combined: new RegExp(source, `${group.flags}g`), nonAscii: group.nonAscii, members, owners };
}

/** Capture groups a regex source defines (the empty alternative makes every source match ''). */
function countGroups(source: string): number {
  return (new RegExp(`${source}|`).exec('')?.length ?? 1) - 1;
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
  if (!source.startsWith('(?:') || !source.endsWith(')')) return undefined;
  let inner: string | undefined;
  scanStructure(source, (char, index, depth) => {
    if (char !== ')' || depth !== 0) return false;
    if (index === source.length - 1) inner = source.slice(3, -1);
    return true;
  });
  return inner;
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
  let ascii: boolean | undefined;
  for (const alternation of alternations) {
    if (alternation.nonAscii) {
      ascii ??= !NON_ASCII.test(text);
      if (ascii) continue;
    }
    scanOne(alternation, text, found);
  }
}

function scanOne({ combined, members, owners }: Alternation, text: string, found: boolean[]): void {
  let missing = 0;
  for (const owner of owners) if (found[owner] !== true) missing += 1;
  combined.lastIndex = 0;
  while (missing > 0) {
    const match = combined.exec(text);
    if (match === null) return;
    const position = match.index;
    const winner = members.findIndex(({ group }) => match[group] !== undefined);
    for (let index = Math.max(0, winner); index < members.length; index += 1) {
      const member = members[index];
      if (member === undefined || found[member.owner] === true) continue;
      member.sticky.lastIndex = position;
      if (index === winner || member.sticky.test(text)) {
        found[member.owner] = true;
        missing -= 1;
      }
    }
    combined.lastIndex = position + 1;
  }
}
