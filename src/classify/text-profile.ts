/** Character counts of the examined text, gathered in one pass; they pick the patterns and feed numbers. */
export interface TextProfile {
  hangul: number;
  han: number;
  kana: number;
  latin: number;
  digits: number;
  /** Characters common in code: `{ } ; = < > [ ] _`. */
  codeSymbols: number;
  /** Characters common in LaTeX and math: `$ \ ^`. */
  mathSymbols: number;
  lines: number;
  /** `?` and the full-width `？`. */
  questionMarks: number;
  /** Runs of letters or digits (a rough word count for space-separated languages). */
  words: number;
}

export function isHangul(code: number): boolean {
  return (code >= 0xac00 && code <= 0xd7a3) || (code >= 0x3130 && code <= 0x318f);
}

export function isHan(code: number): boolean {
  return (code >= 0x4e00 && code <= 0x9fff) || (code >= 0x3400 && code <= 0x4dbf);
}

export function isKana(code: number): boolean {
  return code >= 0x3040 && code <= 0x30ff;
}

/** ASCII letters and digits, Latin-1 to Latin Extended letters, Greek and Cyrillic. */
export function isWordCode(code: number): boolean {
  if (code < 0x80) return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39);
  return (
    (code >= 0xc0 && code <= 0x24f && code !== 0xd7 && code !== 0xf7) || (code >= 0x370 && code <= 0x4ff)
  );
}

/** Characters common in code: `{ } ; = < > [ ] _`. */
const CODE_SYMBOLS = '{};=<>[]_';
/** Characters common in LaTeX and math: `$ \ ^`. */
const MATH_SYMBOLS = '$\\^';
/** Punctuation worth an n-gram feature of its own: code, LaTeX and question marks. */
const FEATURE_SYMBOLS = '$\\{};=#^`?<>_|\uff1f';

/**
 * Bits of `CHAR_CLASSES`: which of the predicates above a UTF-16 code unit satisfies, and which of the
 * symbol lists it is in.
 */
export const CHAR_CLASS = Object.freeze({
  word: 1,
  hangul: 2,
  han: 4,
  kana: 8,
  codeSymbol: 16,
  mathSymbol: 32,
  featureSymbol: 64,
});

/**
 * One byte per UTF-16 code unit with the `CHAR_CLASS` bits, built once (64 KB): the per-character
 * loops of the profile and the n-gram features read it instead of calling the predicates.
 */
export const CHAR_CLASSES: Uint8Array = buildCharClasses();

function buildCharClasses(): Uint8Array {
  const classes = new Uint8Array(0x10000);
  for (let code = 0; code < classes.length; code += 1) {
    classes[code] =
      (isWordCode(code) ? CHAR_CLASS.word : 0) |
      (isHangul(code) ? CHAR_CLASS.hangul : 0) |
      (isHan(code) ? CHAR_CLASS.han : 0) |
      (isKana(code) ? CHAR_CLASS.kana : 0);
  }
  const symbols = [
    [CODE_SYMBOLS, CHAR_CLASS.codeSymbol],
    [MATH_SYMBOLS, CHAR_CLASS.mathSymbol],
    [FEATURE_SYMBOLS, CHAR_CLASS.featureSymbol],
  ] as const;
  for (const [chars, bit] of symbols) {
    for (let index = 0; index < chars.length; index += 1) {
      const code = chars.charCodeAt(index);
      classes[code] = (classes[code] ?? 0) | bit;
    }
  }
  return classes;
}

export function toTextProfile(text: string): TextProfile {
  const profile: TextProfile = {
    hangul: 0,
    han: 0,
    kana: 0,
    latin: 0,
    digits: 0,
    codeSymbols: 0,
    mathSymbols: 0,
    lines: text.length > 0 ? 1 : 0,
    questionMarks: 0,
    words: 0,
  };
  let inWord = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    const classes = CHAR_CLASSES[code] ?? 0;
    const wordCode = (classes & (CHAR_CLASS.word | CHAR_CLASS.hangul)) !== 0;
    if (wordCode && !inWord) profile.words += 1;
    inWord = wordCode;
    countCode(profile, code, classes);
  }
  return profile;
}

function countCode(profile: TextProfile, code: number, classes: number): void {
  if (code === 0x0a) profile.lines += 1;
  else if (code === 0x3f || code === 0xff1f) profile.questionMarks += 1;
  else if (code >= 0x30 && code <= 0x39) profile.digits += 1;
  else if (code >= 0x61 && code <= 0x7a) profile.latin += 1;
  else if ((classes & CHAR_CLASS.hangul) !== 0) profile.hangul += 1;
  else if ((classes & CHAR_CLASS.han) !== 0) profile.han += 1;
  else if ((classes & CHAR_CLASS.kana) !== 0) profile.kana += 1;
  else if ((classes & CHAR_CLASS.codeSymbol) !== 0) profile.codeSymbols += 1;
  else if ((classes & CHAR_CLASS.mathSymbol) !== 0) profile.mathSymbols += 1;
}
