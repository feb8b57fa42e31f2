import { CHAR_CLASS, CHAR_CLASSES } from './text-profile.js';

/** Receives one hashed n-gram (an unsigned 32-bit hash); the caller masks it to its hash space. */
export type FeatureVisitor = (hash: number) => void;

const WORD = CHAR_CLASS.word;
const HANGUL = CHAR_CLASS.hangul;
const CJK = CHAR_CLASS.han | CHAR_CLASS.kana;
/** Punctuation worth a feature of its own: code, LaTeX and question marks. */
const SYMBOL = CHAR_CLASS.featureSymbol;

/** Seeds that keep the n-gram kinds apart in the shared hash space. */
const SEED = Object.freeze({
  word: 0x811c9dc5,
  wordPair: 0x2545f491,
  wordTrigram: 0x68e31da4,
  cjkUnigram: 0x1b873593,
  cjkBigram: 0xcc9e2d51,
  cjkTrigram: 0x85ebca6b,
  hangulBigram: 0xc2b2ae35,
  symbol: 0x27d4eb2f,
});

/** Finalizer of MurmurHash3: spreads the bits so masking to a small space keeps collisions even. */
function mix(hash: number): number {
  let value = hash ^ (hash >>> 16);
  value = Math.imul(value, 0x85ebca6b);
  value ^= value >>> 13;
  value = Math.imul(value, 0xc2b2ae35);
  return (value ^ (value >>> 16)) >>> 0;
}

function step(hash: number, code: number): number {
  return Math.imul(hash ^ code, 16777619);
}

function combine(seed: number, a: number, b: number): number {
  return mix(step(step(seed, a), b));
}

/**
 * Emits word unigrams and bigrams, character trigrams inside words, character 1-3-grams of Chinese and
 * Japanese runs and character bigrams inside Korean words, and single code/math symbols. Digits collapse
 * to `0`, so every number of the same length is one token. Expects lowercased text. Returns the count.
 * One loop on purpose: this is the per-character hot path, and keeping its state in locals keeps it
 * allocation-free.
 */
export function forEachTextFeature(text: string, visit: FeatureVisitor): number {
  const classes = CHAR_CLASSES;
  let count = 0;
  let wordHash: number = SEED.word;
  let wordLength = 0;
  let previousWord = 0;
  let c1 = 0x20;
  let c2 = 0x20;
  let cjk1 = 0;
  let cjk2 = 0;
  let hangulPrevious = 0;
  for (let index = 0; index <= text.length; index += 1) {
    const raw = index < text.length ? text.charCodeAt(index) : 0x20;
    const code = raw >= 0x30 && raw <= 0x39 ? 0x30 : raw;
    const kind = classes[code] ?? 0;
    const hangul = (kind & HANGUL) !== 0;
    if ((kind & WORD) !== 0 || hangul) {
      wordHash = step(wordHash, code);
      wordLength += 1;
      visit(combine(SEED.wordTrigram, (c1 << 16) | c2, code));
      count += 1;
      if (hangul && hangulPrevious !== 0) {
        visit(combine(SEED.hangulBigram, hangulPrevious, code));
        count += 1;
      }
      hangulPrevious = hangul ? code : 0;
      c1 = c2;
      c2 = code;
      cjk1 = 0;
      cjk2 = 0;
      continue;
    }
    if (wordLength > 0) {
      const word = mix(wordHash);
      visit(combine(SEED.wordTrigram, (c1 << 16) | c2, 0x20));
      visit(word);
      count += 2;
      if (previousWord !== 0) {
        visit(combine(SEED.wordPair, previousWord, word));
        count += 1;
      }
      previousWord = word;
      wordHash = SEED.word;
      wordLength = 0;
    }
    c1 = 0x20;
    c2 = 0x20;
    hangulPrevious = 0;
    if ((kind & CJK) !== 0) {
      visit(combine(SEED.cjkUnigram, code, 0));
      count += 1;
      if (cjk2 !== 0) {
        visit(combine(SEED.cjkBigram, cjk2, code));
        count += 1;
      }
      if (cjk1 !== 0) {
        visit(combine(SEED.cjkTrigram, (cjk1 << 16) | cjk2, code));
        count += 1;
      }
      cjk1 = cjk2;
      cjk2 = code;
      previousWord = 0;
      continue;
    }
    cjk1 = 0;
    cjk2 = 0;
    if ((kind & SYMBOL) !== 0) {
      visit(combine(SEED.symbol, code, 0));
      count += 1;
    }
  }
  return count;
}
