/**
 * A routing-table rule's `keywords` as one regex source: each keyword matched
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

/** A keyword as units: each character (code point), and SPACE_UNIT between its words. */
const SPACE_UNIT = '\\s+';

function toUnits(keyword: string): string[] {
  const words = keyword.split(SPACES).filter((word) => word !== '');
  return words.flatMap((word, index) => (index === 0 ? [...word] : [SPACE_UNIT, ...word]));
}

/** Keywords sharing a start share a path: a node per unit, marked where a keyword ends. */
interface TrieNode {
  children: Map<string, TrieNode>;
  /** A keyword ends here; its last character asks for a boundary after it. */
  end: 'none' | 'plain' | 'boundary';
}

function toTrie(keywords: readonly string[]): TrieNode {
  const root: TrieNode = { children: new Map(), end: 'none' };
  for (const keyword of keywords) {
    let node = root;
    const units = toUnits(keyword);
    for (const unit of units) {
      let child = node.children.get(unit);
      if (child === undefined) {
        child = { children: new Map(), end: 'none' };
        node.children.set(unit, child);
      }
      node = child;
    }
    if (units.length > 0) node.end = needsBoundary(units[units.length - 1]) ? 'boundary' : 'plain';
  }
  return root;
}

function toUnitSource(unit: string): string {
  return unit === SPACE_UNIT ? unit : unit.replace(SYNTAX, '\\$&');
}

/** What may follow a node: an end (with its boundary) first, then each child's unit and subtree. */
function toNodeSource(node: TrieNode): string {
  const branches: string[] = [];
  if (node.end !== 'none') branches.push(node.end === 'boundary' ? `(?!${WORD_CHAR})` : '');
  for (const [unit, child] of node.children) branches.push(`${toUnitSource(unit)}${toNodeSource(child)}`);
  return branches.length === 1 ? (branches[0] ?? '') : `(?:${branches.join('|')})`;
}

/** True when a keyword has something to match (not only whitespace). */
export function isUsableKeyword(keyword: string): boolean {
  return keyword.split(SPACES).some((word) => word !== '');
}

/**
 * The regex source (flags `KEYWORD_FLAGS`) matching any of the keywords, as a trie: keywords that
 * share a start share its characters, so each text position reads at most the longest keyword, not
 * every keyword (100 keywords starting `step by ` read 64 KiB of `step by      ...` in 67 ms as a plain
 * alternation).
 */
export function toKeywordsSource(keywords: readonly string[]): string {
  const root = toTrie(keywords);
  const branches = [...root.children].map(([unit, child]) => {
    const before = needsBoundary(unit) ? `(?<!${WORD_CHAR})` : '';
    return `${before}${toUnitSource(unit)}${toNodeSource(child)}`;
  });
  return branches.join('|');
}
