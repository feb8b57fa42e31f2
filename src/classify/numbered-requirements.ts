/**
 * Three list items ("1." "2)" "-" "*" "•" at a line start, each running to a newline), each starting
 * at most 400 characters after the newline that ends the one before: the `numbered_requirements`
 * signal. This regex says it, and `hasNumberedRequirements` answers exactly as its `test` does.
 */
export const NUMBERED_REQUIREMENTS_PATTERN = /(?:^[ \t]*(?:\d+[.)]|[-*•])[ \t]+\S[^\n]*\n[\s\S]{0,400}?){3}/m;

/** Items in a row, and characters allowed between one item's newline and the next item. */
const ITEMS = 3;
const GAP = 400;
const WHITE_SPACE = /\s/;

/**
 * `NUMBERED_REQUIREMENTS_PATTERN.test(text)` in linear time. The regex reads to the next newline
 * again from every item start and tries 400 gaps after each: with items that start after carriage
 * returns (`^` with `m` follows them too) and one newline far away, 10 ms on a 900-character window.
 * Here each item start is read once, and chains are counted from the right.
 */
export function hasNumberedRequirements(text: string): boolean {
  const afterNewline = toNextLineEnds(text);
  // atLeast[k][i]: item starts at or after i that begin a chain of k + 1 items or more
  const atLeast = Array.from({ length: ITEMS }, () => new Int32Array(text.length + 2));
  for (let start = text.length; start >= 0; start -= 1) {
    const end = isLineStart(text, start) ? toItemEnd(text, start, afterNewline) : -1;
    let chain = end === -1 ? 0 : 1;
    if (end !== -1) {
      const last = Math.min(end + GAP, text.length);
      for (let level = 1; level < ITEMS; level += 1) {
        const below = atLeast[level - 1];
        if (below !== undefined && (below[end] ?? 0) - (below[last + 1] ?? 0) > 0) chain = level + 1;
      }
    }
    if (chain >= ITEMS) return true;
    atLeast.forEach((counts, level) => {
      counts[start] = (counts[start + 1] ?? 0) + (chain > level ? 1 : 0);
    });
  }
  return false;
}

/** Per index, the index after the first `\n` at or after it, or -1. */
function toNextLineEnds(text: string): Int32Array {
  const ends = new Int32Array(text.length + 1).fill(-1);
  for (let index = text.length - 1; index >= 0; index -= 1) {
    ends[index] = text.charCodeAt(index) === 0x0a ? index + 1 : (ends[index + 1] ?? -1);
  }
  return ends;
}

/** Where `^` matches with `m`: the start, or after \n, \r, U+2028 or U+2029. */
function isLineStart(text: string, index: number): boolean {
  if (index === 0) return true;
  const previous = text.charCodeAt(index - 1);
  return previous === 0x0a || previous === 0x0d || previous === 0x2028 || previous === 0x2029;
}

/**
 * Where an item that starts at `start` ends (after its newline), or -1: `[ \t]*`, then `\d+[.)]` or
 * one of `-*•`, then `[ \t]+`, then a non-space, then the rest of the line. Each part can match in
 * one way only (the next part cannot start with what the one before repeats), so one pass decides.
 */
function toItemEnd(text: string, start: number, afterNewline: Int32Array): number {
  let index = skip(text, start, isBlank);
  const digitsEnd = skip(text, index, isDigit);
  if (digitsEnd > index) {
    const mark = text[digitsEnd];
    if (mark !== '.' && mark !== ')') return -1;
    index = digitsEnd + 1;
  } else {
    const mark = text[index];
    if (mark !== '-' && mark !== '*' && mark !== '•') return -1;
    index += 1;
  }
  const contentStart = skip(text, index, isBlank);
  const content = text[contentStart];
  if (contentStart === index || content === undefined || WHITE_SPACE.test(content)) return -1;
  return afterNewline[contentStart] ?? -1;
}

function skip(text: string, from: number, accepts: (code: number) => boolean): number {
  let index = from;
  while (index < text.length && accepts(text.charCodeAt(index))) index += 1;
  return index;
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}
