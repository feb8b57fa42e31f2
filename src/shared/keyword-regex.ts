/**
 * A routing-table rule's `keywords` as one regex source (issue 19): each keyword matched
 * case-insensitively (flags `iu`), its words separated by any whitespace, on word boundaries.
 *
 * A boundary is one character that is not a letter, digit or underscore (any script), or the text's
 * edge; it is required only at a keyword edge that is such a character itself (`C++` needs none after
 * it), and never at an edge in a script written without spaces between words or with particles joined
 * to them (Han, kana, Hangul, Thai, Lao, Khmer, Myanmar): `증명` also matches in `증명을`.
 *
 * Linear by construction, so the load-time backtracking check is not run on it (on 100 keywords of
 * 100 characters it takes about 0.6 s, so 2 minutes for a table of 200 such rules): a finite
 * alternation of literals whose only loop is `\s+` followed by a non-space literal, between two
 * one-character lookarounds. keyword-regex.test.ts checks that claim with `checkRegexSafety` on
 * awkward keyword lists.
 */

/** Flags of every keyword regex. */
export const KEYWORD_FLAGS = 'iu';

/** A letter, digit or underscore of any script: what a keyword's word edge must not touch. */
const WORD_CHAR = '[\\p{L}\\p{N}_]';
const WORD_TEST = /^[\p{L}\p{N}_]$/u;
/** Scripts whose words are not separated by spaces alone: no boundary is asked at their edges. */
const UNSPACED_TEST =
  /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]$/u;
/** Characters escaped in a keyword: the syntax characters and `/`, the escapes the `u` flag allows. */
const SYNTAX = /[\\^$.*+?()[\]{}|/]/g;
const SPACES = /\s+/u;

function needsBoundary(char: string | undefined): boolean {
  return char !== undefined && WORD_TEST.test(char) && !UNSPACED_TEST.test(char);
}

/** One keyword as a source: its words escaped and joined by `\s+`, with the boundaries its edges need. */
function toKeywordSource(keyword: string): string {
  const words = keyword.split(SPACES).filter((word) => word !== '');
  const body = words.map((word) => word.replace(SYNTAX, '\\$&')).join('\\s+');
  const chars = [...words.join(' ')];
  const before = needsBoundary(chars[0]) ? `(?<!${WORD_CHAR})` : '';
  const after = needsBoundary(chars[chars.length - 1]) ? `(?!${WORD_CHAR})` : '';
  return `${before}${body}${after}`;
}

/** True when a keyword has something to match (not only whitespace). */
export function isUsableKeyword(keyword: string): boolean {
  return keyword.split(SPACES).some((word) => word !== '');
}

/** The regex source (flags `KEYWORD_FLAGS`) matching any of the keywords. */
export function toKeywordsSource(keywords: readonly string[]): string {
  return keywords.filter(isUsableKeyword).map(toKeywordSource).join('|');
}
