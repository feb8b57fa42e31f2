/**
 * Many regexes tested against one text in about one scan instead of one scan each (issue 3: the local
 * stages must cost under 0.2 ms per request). The answer is exactly `patterns.map((p) => p.test(text))`:
 * the patterns are joined into one global alternation, each wrapped in a capturing group. At every
 * position where the alternation matches, the alternative that won is the first one that matches there,
 * so only the later, not yet matched alternatives are tried at that position with sticky copies; the
 * scan then resumes one character later, so no match hidden inside another one is skipped.
 */
export interface PatternSet {
  /** `found[i]` is set to true when pattern i matches `text` (entries already true stay true). */
  scan(text: string, found: boolean[]): void;
  readonly size: number;
}

interface Alternation {
  combined: RegExp;
  /** Per alternative: its index in the pattern list and the number of its capture group in `combined`. */
  members: readonly { index: number; group: number; sticky: RegExp }[];
}

/** Capture groups a regex source defines (the empty alternative makes every source match ''). */
function countGroups(source: string): number {
  return (new RegExp(`${source}|`).exec('')?.length ?? 1) - 1;
}

/** One alternation per distinct flag set; patterns must not use the `g` or `y` flags or backreferences. */
export function createPatternSet(patterns: readonly RegExp[]): PatternSet {
  const byFlags = new Map<string, number[]>();
  patterns.forEach((pattern, index) => {
    if (pattern.global || pattern.sticky) throw new Error(`pattern ${pattern.source} must not be g or y`);
    byFlags.set(pattern.flags, [...(byFlags.get(pattern.flags) ?? []), index]);
  });
  const alternations: Alternation[] = [...byFlags].map(([flags, indices]) => {
    let group = 1;
    const members = indices.map((index) => {
      const source = patterns[index]?.source ?? '(?!)';
      const member = { index, group, sticky: new RegExp(source, `${flags}y`) };
      group += 1 + countGroups(source);
      return member;
    });
    const joined = indices.map((index) => `(${patterns[index]?.source ?? '(?!)'})`).join('|');
    return { combined: new RegExp(joined, `${flags}g`), members };
  });
  return { scan: (text, found) => scanAll(alternations, text, found), size: patterns.length };
}

function scanAll(alternations: readonly Alternation[], text: string, found: boolean[]): void {
  for (const alternation of alternations) scanOne(alternation, text, found);
}

function scanOne({ combined, members }: Alternation, text: string, found: boolean[]): void {
  let missing = members.filter(({ index }) => found[index] !== true).length;
  combined.lastIndex = 0;
  while (missing > 0) {
    const match = combined.exec(text);
    if (match === null) break;
    const position = match.index;
    const winner = members.findIndex(({ group }) => match[group] !== undefined);
    for (let member = Math.max(0, winner); member < members.length; member += 1) {
      const { index, sticky } = members[member] ?? { index: -1, sticky: undefined };
      if (sticky === undefined || found[index] === true) continue;
      sticky.lastIndex = position;
      if (member === winner || sticky.test(text)) {
        found[index] = true;
        missing -= 1;
      }
    }
    combined.lastIndex = position + 1;
  }
}
