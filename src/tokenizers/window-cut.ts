/**
 * Where to cut a long text into windows that are pre-tokenized one at a time.
 *
 * A space whose previous character is not whitespace always starts a piece in the three pre-tokenizers
 * used here (a piece holds a space only at its start or is all whitespace, and none looks behind), and
 * nothing composes with a space under NFC, so a cut there changes no piece: it is exact. Without such a
 * space (CJK, base64, DNA, minified code) the cut splits a piece; `exact: false` says so and the caller
 * charges for it.
 */
export interface WindowCut {
  end: number;
  exact: boolean;
}

/** JavaScript's `\s` and Unicode White_Space together. */
const isWhitespace = (code: number): boolean =>
  code === 0x20 ||
  (code >= 0x09 && code <= 0x0d) ||
  code === 0x85 ||
  code === 0xa0 ||
  code === 0x1680 ||
  (code >= 0x2000 && code <= 0x200a) ||
  code === 0x2028 ||
  code === 0x2029 ||
  code === 0x202f ||
  code === 0x205f ||
  code === 0x3000 ||
  code === 0xfeff;

/** A character before which NFC never composes: ASCII, CJK ideographs, Hangul syllables, kana. */
const isStableStart = (code: number): boolean =>
  code < 0x80 ||
  (code >= 0x4e00 && code <= 0x9fff) ||
  (code >= 0xac00 && code <= 0xd7a3) ||
  (code >= 0x3041 && code <= 0x3096) ||
  (code >= 0x30a1 && code <= 0x30fa);

/** How far back from the longest window a cut is looked for, in characters. */
const SEARCH_BACK = 256;

/** End of the window that starts at `start` and holds at most `maxLength` characters. */
export function toWindowCut(text: string, start: number, maxLength: number): WindowCut {
  const limit = start + maxLength;
  if (limit >= text.length) return { end: text.length, exact: true };
  const floor = Math.max(start + 1, limit - SEARCH_BACK);
  for (let end = limit; end > floor; end--) {
    if (text.charCodeAt(end) === 0x20 && !isWhitespace(text.charCodeAt(end - 1))) return { end, exact: true };
  }
  for (let end = limit; end > floor; end--) {
    const code = text.charCodeAt(end);
    if (isStableStart(code) && !(code >= 0xdc00 && code <= 0xdfff)) return { end, exact: false };
  }
  const low = text.charCodeAt(limit);
  return { end: low >= 0xdc00 && low <= 0xdfff ? limit - 1 : limit, exact: false };
}
