/**
 * Reading regex sources as text: their top-level branches, a leading group, literal first characters
 * and line anchors. Walks skip escapes and character classes; `pattern-set.ts` builds on these.
 */

/** Leading assertions that branches share behind one copy: a word edge, or a line or text start. */
export const SHARED_PREFIXES = ['\\b', '^'] as const;
/** Regex syntax that makes the character before it optional or repeated. */
const QUANTIFIERS = new Set(['?', '*', '+', '{']);
/** Regex syntax characters: a source starting with one of these does not start with a literal. */
const SYNTAX = new Set(['\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}']);

/** True when a regex source has `^` or `$` outside character classes and escapes. */
export function hasLineAnchor(source: string): boolean {
  let found = false;
  scanStructure(source, (char) => (found = char === '^' || char === '$'));
  return found;
}

/**
 * The literal characters (at most `max`) a regex source starts with: up to the first syntax character
 * or optional or repeated character. Always '' with the `i` flag (a character stands for two) and the
 * `u` or `v` flag (a character outside the BMP is one unit, not two).
 */
export function toLiteralPrefix(source: string, flags: string, max: number): string {
  if (/[iuv]/.test(flags)) return '';
  let length = 0;
  while (length < max) {
    const char = source[length];
    if (char === undefined || SYNTAX.has(char) || QUANTIFIERS.has(source[length + 1] ?? '')) break;
    length += 1;
  }
  return source.slice(0, length);
}

/**
 * A branch `P(?:a|b)S`, with P a shared prefix or nothing, as the branches `PaS` and `PbS` (again
 * when `a` starts with a group): together they match exactly where it does, and each can start with
 * its own first character.
 */
export function distributeGroup(source: string): string[] {
  const prefix = SHARED_PREFIXES.find((candidate) => source.startsWith(candidate)) ?? '';
  const group = toLeadingGroup(source.slice(prefix.length));
  if (group === undefined || QUANTIFIERS.has(group.rest[0] ?? '')) return [source];
  return splitBranches(group.inner).flatMap((branch) => distributeGroup(`${prefix}${branch}${group.rest}`));
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
 * Walks a regex source outside escapes and character classes, calling `visit` with each `)`, `|`,
 * `^` and `$` and the group depth after it; stops when `visit` returns true.
 */
function scanStructure(
  source: string,
  visit: (char: ')' | '|' | '^' | '$', index: number, depth: number) => boolean,
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
    } else if ((char === '|' || char === '^' || char === '$') && visit(char, index, depth)) return;
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
