/** A lowercase word of 2 to 9 letters, vowels and consonants alternating as in prose. */
function toWord(next: () => number): string {
  const letters: string[] = [];
  const length = 2 + (next() % 8);
  for (let index = 0; index < length; index++)
    letters.push(index % 2 === 0 ? ('bcdfghklmnprstvw'[next() % 16] ?? 'b') : ('aeiou'[next() % 5] ?? 'a'));
  return letters.join('');
}

/** Pieces of the kinds of text a long prompt holds, each drawn from a pseudo-random source. */
const PARTS: ((next: () => number) => string)[] = [
  // prose: words (some capitalised, some contractions), punctuation, numbers, line breaks
  (next) => ` ${toWord(next)}`,
  (next) => ` ${toWord(next)}`,
  (next) => ` ${toWord(next)}`,
  (next) => ` ${toWord(next)}`,
  (next) => ` ${toWord(next)},`,
  (next) => ` ${String.fromCharCode(65 + (next() % 26))}${toWord(next)}'s`,
  (next) => ` ${toWord(next)}.\n`,
  (next) => ` ${next() % 100_000}`,
  // CJK and Hangul without spaces (NFC checks, chunked merges)
  (next) => String.fromCharCode(...Array.from({ length: 40 }, () => 0x4e00 + (next() % 0x5000))),
  (next) => String.fromCharCode(...Array.from({ length: 40 }, () => 0xac00 + (next() % 11_172))),
  // long unsplit runs: DNA, base64
  (next) => Array.from({ length: 600 }, () => 'ACGT'[next() % 4]).join(''),
  (next) => Array.from({ length: 600 }, () => String.fromCharCode(48 + (next() % 75))).join(''),
  // whitespace, punctuation, code
  () => '\n\n    ',
  (next) => `{"k${next() % 100}": [${next() % 10}, null]};`,
];

/**
 * About `characters` UTF-16 units of mixed text: a counting thread counts it right after loading a
 * tokenizer, so that its first real count runs optimised code (the threads see only long texts, so
 * nothing else warms them up).
 */
export function toWarmUpText(characters: number): string {
  /** A linear congruential generator: the same text every time. */
  let state = 12_345;
  const next = (): number => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state >>> 8;
  };
  const parts: string[] = [];
  let length = 0;
  while (length < characters) {
    const part = (PARTS[next() % PARTS.length] ?? (() => ''))(next);
    parts.push(part);
    length += part.length;
  }
  return parts.join('');
}
