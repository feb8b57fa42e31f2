/**
 * Unicode classes the pre-tokenizers test, one bit each, looked up per code point in a table that is
 * filled a block of 256 code points at a time, on first use (the regexes below decide, so the classes
 * are exactly those of the JavaScript engine's Unicode tables).
 */
export const LETTER = 1;
export const NUMBER = 2;
/** JavaScript's `\s` (tiktoken's patterns run in js-tiktoken with it). */
export const SPACE_JS = 4;
/** Unicode White_Space: Rust's and Oniguruma's `\s`, which Qwen's tokenizer uses. */
export const SPACE_UNICODE = 8;
/** [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], o200k's upper-case side of a word. */
export const UPPERISH = 16;
/** [\p{Ll}\p{Lm}\p{Lo}\p{M}], o200k's lower-case side of a word. */
export const LOWERISH = 32;

const CLASSES: readonly [number, RegExp][] = [
  [LETTER, /^\p{L}$/u],
  [NUMBER, /^\p{N}$/u],
  [SPACE_JS, /^\s$/u],
  [SPACE_UNICODE, /^\p{White_Space}$/u],
  [UPPERISH, /^[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]$/u],
  [LOWERISH, /^[\p{Ll}\p{Lm}\p{Lo}\p{M}]$/u],
];

const BLOCK = 256;
const CODE_POINTS = 0x110000;

export interface CharacterClasses {
  /** The class bits of a code point. */
  of(codePoint: number): number;
}

export function createCharacterClasses(): CharacterClasses {
  const bits = new Uint8Array(CODE_POINTS);
  const ready = new Uint8Array(CODE_POINTS / BLOCK);
  const fill = (block: number): void => {
    for (let codePoint = block * BLOCK; codePoint < (block + 1) * BLOCK; codePoint++) {
      const character = String.fromCodePoint(codePoint);
      let value = 0;
      for (const [bit, pattern] of CLASSES) if (pattern.test(character)) value |= bit;
      bits[codePoint] = value;
    }
    ready[block] = 1;
  };
  for (let block = 0; block < 0x3000 / BLOCK; block++) fill(block);
  return {
    of(codePoint) {
      const block = codePoint >> 8;
      if (ready[block] === 0) fill(block);
      return bits[codePoint] ?? 0;
    },
  };
}
