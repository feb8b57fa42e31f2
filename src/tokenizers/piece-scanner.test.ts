import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import { createSeededRandom, HOSTILE_KINDS, toHostileText } from '../../test/helpers/hostile-texts.js';
import { QWEN_PATTERN } from './load-qwen3.js';
import { createPieceScanner, type PatternName } from './piece-scanner.js';

/** Characters where the three pre-tokenizers differ: cases, marks, digits, every kind of space. */
const ALPHABET = [
  ..."abZQsStTrReEvVlLdDmM''.\"/!-1",
  ...'中ſé\u0301٣½가яЯǅʰ😀𝐀\ud800',
  ...' \t\n\r\u00a0\u0085\ufeff\u3000\u2028',
];

function toPieces(scanner: ReturnType<typeof createPieceScanner>, text: string): [number, number][] {
  const pieces: [number, number][] = [];
  for (let start = 0; start < text.length;) {
    const end = scanner.pieceEnd(text, start, text.length);
    pieces.push([start, end]);
    start = end;
  }
  return pieces;
}

const PATTERNS: [PatternName, string][] = [
  ['qwen', QWEN_PATTERN],
  ['cl100k', cl100k.pat_str],
  ['o200k', o200k.pat_str],
];

describe.each(PATTERNS)('the %s piece scanner', (name, pattern) => {
  const scanner = createPieceScanner(name);
  const regex = new RegExp(pattern, 'gu');
  const regexPieces = (text: string): [number, number][] =>
    [...text.matchAll(regex)].map((match) => [match.index, match.index + match[0].length]);

  it('cuts random text exactly where the tokenizer regex does', () => {
    const random = createSeededRandom(7);
    for (let trial = 0; trial < 20_000; trial++) {
      const length = 1 + Math.floor(random() * 24);
      let text = '';
      for (let index = 0; index < length; index++) text += ALPHABET[Math.floor(random() * ALPHABET.length)];
      expect(toPieces(scanner, text), JSON.stringify(text)).toEqual(regexPieces(text));
    }
  });

  it('cuts hostile runs exactly where the tokenizer regex does', () => {
    for (const kind of HOSTILE_KINDS) {
      const text = toHostileText(kind, 3000, 3);
      expect(toPieces(scanner, text), kind).toEqual(regexPieces(text));
    }
  });
});
