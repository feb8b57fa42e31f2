/**
 * Terminal columns a code point takes: 2 for East Asian wide and full-width characters (CJK,
 * Hangul, full-width forms), 1 otherwise. A small table, enough for the languages in our eval files.
 */
const WIDE_RANGES: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x20000, 0x3fffd],
];

function toCodePointWidth(codePoint: number): number {
  return WIDE_RANGES.some(([low, high]) => codePoint >= low && codePoint <= high) ? 2 : 1;
}

/** Columns `text` takes in a monospace terminal. */
export function toDisplayWidth(text: string): number {
  let width = 0;
  for (const character of text) width += toCodePointWidth(character.codePointAt(0) ?? 0);
  return width;
}

/** The longest prefix of `text` that fits in `columns`. */
export function truncateToWidth(text: string, columns: number): string {
  let width = 0;
  let result = '';
  for (const character of text) {
    width += toCodePointWidth(character.codePointAt(0) ?? 0);
    if (width > columns) break;
    result += character;
  }
  return result;
}

/** Pads with spaces to `columns`, on the right (`end`) or the left (`start`). */
export function padToWidth(text: string, columns: number, side: 'start' | 'end'): string {
  const padding = ' '.repeat(Math.max(0, columns - toDisplayWidth(text)));
  return side === 'end' ? text + padding : padding + text;
}
