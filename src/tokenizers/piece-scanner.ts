import {
  createCharacterClasses,
  LETTER,
  LOWERISH,
  NUMBER,
  SPACE_JS,
  SPACE_UNICODE,
  UPPERISH,
  type CharacterClasses,
} from './character-classes.js';

/**
 * The pre-tokenizers of Qwen (Qwen2 to Qwen3-VL), cl100k_base and o200k_base written out as scanners:
 * each returns where the piece that starts at `start` ends, exactly as the tokenizer's regex would
 * (`piece-scanner.test.ts` checks them against the regexes on random text). A scanner looks at each
 * character a bounded number of times, so its work is linear on any input, and it builds no match
 * objects (V8's Unicode regexes cost about 1 us a piece).
 */
export type PatternName = 'qwen' | 'cl100k' | 'o200k';

export interface PieceScanner {
  /** End of the piece that starts at `start`, looking no further than `limit`. */
  pieceEnd(text: string, start: number, limit: number): number;
}

const APOSTROPHE = 0x27;
const CR = 0x0d;
const LF = 0x0a;
const SPACE = 0x20;
const SLASH = 0x2f;

interface Cursor {
  text: string;
  limit: number;
}

function codePointAt(cursor: Cursor, index: number): number {
  const code = cursor.text.charCodeAt(index);
  if (code < 0xd800 || code > 0xdbff || index + 1 >= cursor.limit) return code;
  const low = cursor.text.charCodeAt(index + 1);
  return low >= 0xdc00 && low <= 0xdfff ? 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00) : code;
}

const widthOf = (codePoint: number): number => (codePoint > 0xffff ? 2 : 1);

/** Length of a contraction suffix ('s 't 're 've 'm 'll 'd, any case) after an apostrophe, or 0. */
function toContractionLength(cursor: Cursor, index: number, longS: boolean): number {
  if (index >= cursor.limit) return 0;
  const first = cursor.text.charCodeAt(index) | 0x20;
  if (first === 0x73 || first === 0x74 || first === 0x6d || first === 0x64) return 1;
  if (longS && cursor.text.charCodeAt(index) === 0x17f) return 1;
  if (index + 1 >= cursor.limit) return 0;
  const second = cursor.text.charCodeAt(index + 1) | 0x20;
  if ((first === 0x72 || first === 0x76) && second === 0x65) return 2;
  return first === 0x6c && second === 0x6c ? 2 : 0;
}

interface Rules {
  classes: CharacterClasses;
  space: number;
  maxDigits: number;
  longS: boolean;
  slashAfterPunctuation: boolean;
}

/** Shared scanning steps over one text; `rules` holds what differs between the patterns. */
class Scan {
  constructor(
    private readonly cursor: Cursor,
    private readonly rules: Rules,
  ) {}

  classAt(index: number): number {
    return this.rules.classes.of(codePointAt(this.cursor, index));
  }

  /** End of the run of characters, from `index`, whose class has any of `bits`. */
  runEnd(index: number, bits: number): number {
    let end = index;
    while (end < this.cursor.limit) {
      const codePoint = codePointAt(this.cursor, end);
      if ((this.rules.classes.of(codePoint) & bits) === 0) break;
      end += widthOf(codePoint);
    }
    return end;
  }

  /** End of a run of "other" characters (not whitespace, letter or number). */
  otherRunEnd(index: number): number {
    let end = index;
    const bits = this.rules.space | LETTER | NUMBER;
    while (end < this.cursor.limit) {
      const codePoint = codePointAt(this.cursor, end);
      if ((this.rules.classes.of(codePoint) & bits) !== 0) break;
      end += widthOf(codePoint);
    }
    return end;
  }

  /** `[\r\n]*`, or o200k's `[\r\n/]*`. */
  lineBreakRunEnd(index: number): number {
    let end = index;
    while (end < this.cursor.limit) {
      const code = this.cursor.text.charCodeAt(end);
      if (code !== CR && code !== LF && !(code === SLASH && this.rules.slashAfterPunctuation)) break;
      end += 1;
    }
    return end;
  }

  isOther(index: number): boolean {
    return index < this.cursor.limit && (this.classAt(index) & (this.rules.space | LETTER | NUMBER)) === 0;
  }

  /** `[^\r\n\p{L}\p{N}]`: what may stand before a word. */
  isWordPrefix(index: number): boolean {
    const code = this.cursor.text.charCodeAt(index);
    return code !== CR && code !== LF && (this.classAt(index) & (LETTER | NUMBER)) === 0;
  }

  digits(start: number): number {
    let end = start;
    for (let count = 0; count < this.rules.maxDigits && end < this.cursor.limit; count++) {
      const codePoint = codePointAt(this.cursor, end);
      if ((this.rules.classes.of(codePoint) & NUMBER) === 0) break;
      end += widthOf(codePoint);
    }
    return end;
  }

  /** ` ?[^\s\p{L}\p{N}]+[\r\n]*` (o200k: `[\r\n/]*`), or -1. */
  punctuation(start: number): number {
    const from = this.cursor.text.charCodeAt(start) === SPACE && this.isOther(start + 1) ? start + 1 : start;
    return this.isOther(from) ? this.lineBreakRunEnd(this.otherRunEnd(from)) : -1;
  }

  /** `\s*[\r\n]+|\s+(?!\S)|\s+` at a whitespace character. */
  whitespace(start: number): number {
    let end = start;
    let lastBreak = -1;
    while (end < this.cursor.limit && (this.classAt(end) & this.rules.space) !== 0) {
      const code = this.cursor.text.charCodeAt(end);
      if (code === CR || code === LF) lastBreak = end;
      end += 1;
    }
    if (lastBreak >= 0) return lastBreak + 1;
    if (end >= this.cursor.limit || end - start < 2) return end;
    return end - 1;
  }

  withContraction(end: number): number {
    if (end >= this.cursor.limit || this.cursor.text.charCodeAt(end) !== APOSTROPHE) return end;
    const length = toContractionLength(this.cursor, end + 1, this.rules.longS);
    return length === 0 ? end : end + 1 + length;
  }

  /** o200k's `[upper]*[lower]+` from `start`: greedy, backing off to the last lower-side character. */
  upperThenLower(start: number): number {
    let end = start;
    let lastLower = -1;
    while (end < this.cursor.limit) {
      const codePoint = codePointAt(this.cursor, end);
      const bits = this.rules.classes.of(codePoint);
      if ((bits & UPPERISH) === 0) break;
      if ((bits & LOWERISH) !== 0) lastLower = end;
      end += widthOf(codePoint);
    }
    if (end < this.cursor.limit && (this.classAt(end) & LOWERISH) !== 0) return this.runEnd(end, LOWERISH);
    return lastLower < 0 ? -1 : lastLower + widthOf(codePointAt(this.cursor, lastLower));
  }

  /** o200k's `[upper]+[lower]*` from `start`. */
  upperRun(start: number): number {
    if (start >= this.cursor.limit || (this.classAt(start) & UPPERISH) === 0) return -1;
    return this.runEnd(this.runEnd(start, UPPERISH), LOWERISH);
  }

  /** Digits, then punctuation, then whitespace: the alternatives after the word shapes. */
  rest(start: number): number {
    if ((this.classAt(start) & NUMBER) !== 0) return this.digits(start);
    const punctuation = this.punctuation(start);
    return punctuation >= 0 ? punctuation : this.whitespace(start);
  }

  /** Qwen and cl100k: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,max}|...` */
  wordsFirst(start: number): number {
    const { text, limit } = this.cursor;
    if (text.charCodeAt(start) === APOSTROPHE) {
      const length = toContractionLength(this.cursor, start + 1, this.rules.longS);
      if (length > 0) return start + 1 + length;
    }
    if ((this.classAt(start) & LETTER) !== 0) return this.runEnd(start, LETTER);
    const next = start + widthOf(codePointAt(this.cursor, start));
    if (this.isWordPrefix(start) && next < limit && (this.classAt(next) & LETTER) !== 0)
      return this.runEnd(next, LETTER);
    return this.rest(start);
  }

  /** o200k: two word shapes (upper-then-lower, then an upper run), each with an optional prefix. */
  o200k(start: number): number {
    const next = start + widthOf(codePointAt(this.cursor, start));
    const prefixed = this.isWordPrefix(start) && next < this.cursor.limit;
    let end = prefixed ? this.upperThenLower(next) : -1;
    if (end < 0) end = this.upperThenLower(start);
    if (end < 0 && prefixed) end = this.upperRun(next);
    if (end < 0) end = this.upperRun(start);
    return end >= 0 ? this.withContraction(end) : this.rest(start);
  }
}

export function createPieceScanner(name: PatternName, classes = createCharacterClasses()): PieceScanner {
  const rules: Rules = {
    classes,
    space: name === 'qwen' ? SPACE_UNICODE : SPACE_JS,
    maxDigits: name === 'qwen' ? 1 : 3,
    longS: name === 'qwen',
    slashAfterPunctuation: name === 'o200k',
  };
  const cursor: Cursor = { text: '', limit: 0 };
  const scan = new Scan(cursor, rules);
  return {
    pieceEnd(text, start, limit) {
      cursor.text = text;
      cursor.limit = limit;
      const end = name === 'o200k' ? scan.o200k(start) : scan.wordsFirst(start);
      return end > start ? end : start + widthOf(codePointAt(cursor, start));
    },
  };
}
