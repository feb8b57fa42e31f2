import type { CancelSignal } from '../shared/cancel-signal.js';
import { RouterError } from '../shared/errors.js';
import { toUtf8 } from './byte-level.js';
import { createBpeMerger, MAX_MERGE_BYTES, type WorkMeter } from './bpe-merge.js';
import { createPieceCache, type PieceCache } from './piece-cache.js';
import { createPieceScanner } from './piece-scanner.js';
import type { TokenizerSpec } from './tokenizer-spec.js';
import { toWindowCut } from './window-cut.js';
import { yieldToEventLoop } from '../shared/yield-to-event-loop.js';

export interface CountOptions {
  /** Aborted when the client goes away: counting stops with CLIENT_CLOSED. */
  signal?: CancelSignal | undefined;
  /** Counting stops once the count is above this; the result is then any number above it. */
  stopAbove?: number | undefined;
  /** Receives the work done (tests bound it). */
  meter?: WorkMeter | undefined;
  /**
   * Counts only the windows from `range.start` to `range.end`, both where the whole text's windows
   * start or end (see `toSegmentRanges`), so the counts of consecutive ranges add up to the whole
   * text's. @default the whole text
   */
  range?: { start: number; end: number } | undefined;
  /** Asked before each window with the tokens so far; true stops the count there (as stopAbove does). */
  shouldStop?: ((tokens: number) => boolean) | undefined;
}

export interface TextCounter {
  /** BPE tokens of a text, as the tokenizer encodes it (added tokens are one token each). */
  count(text: string, options?: CountOptions): Promise<number>;
}

export interface TextCounterOptions {
  spec: TokenizerSpec;
  /** Lets other work run; resolves on the next turn of the event loop. @default setImmediate */
  yieldToEventLoop?: () => Promise<void>;
  /** Work between two yields, in steps (characters scanned plus BPE steps). @default YIELD_EVERY_STEPS */
  yieldEverySteps?: number;
  /** Longest byte run merged at once. @default CHUNK_BYTES */
  chunkBytes?: number;
  /** Tokens charged per inexact cut. @default CUT_TOKENS */
  cutTokens?: number;
}

/** Characters pre-tokenized at a time; a window's work is bounded, so yields can come between windows. */
export const WINDOW_CHARACTERS = 2048;
/**
 * Longest byte run merged at once; longer pieces (one repeated letter, DNA, base64, CJK without
 * spaces) are merged in chunks of this size, which bounds BPE work at a few steps per byte. Measured
 * on 15 hostile kinds of 300 to 20,000 characters against the real tokenizers: 256 over-counts by at
 * most 2% (0.1-0.9% on base64, DNA, CJK, one repeated letter; runs of spaces aside, whose counts are
 * tiny), 64 by up to 8% for about 15% less work, 1024 by at most 0.4% for about 20% more.
 */
export const CHUNK_BYTES = 256;
/**
 * Tokens charged per inexact cut (a chunk boundary, a window cut inside a piece). Without it, Hangul
 * runs cut into chunks were under-counted by 1 or 2 tokens; with it no measured text was.
 */
export const CUT_TOKENS = 1;
/** Pieces up to this many UTF-16 units are cached as words. */
const WORD_CHARACTERS = 32;
/** About 1 ms of counting on a 2-core development machine (40-70 ns a step). */
export const YIELD_EVERY_STEPS = 16_384;

type Range = { start: number; end: number };

/** End of the longest run of whole characters from range.start whose UTF-8 fits in maxBytes. */
function toChunkEnd(text: string, range: Range, maxBytes: number): number {
  let bytes = 0;
  let index = range.start;
  while (index < range.end) {
    const code = text.charCodeAt(index);
    const low = index + 1 < range.end ? text.charCodeAt(index + 1) : 0;
    const pair = code >= 0xd800 && code <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    index += pair ? 2 : 1;
  }
  return index;
}

/** Whether text[start, end) is all below U+0300, where NFC changes nothing. */
function isNfcStable(text: string, range: Range): boolean {
  for (let index = range.start; index < range.end; index++) if (text.charCodeAt(index) >= 0x300) return false;
  return true;
}

export function createTextCounter(options: TextCounterOptions): TextCounter {
  const { spec } = options;
  const yieldNow = options.yieldToEventLoop ?? yieldToEventLoop;
  const yieldEvery = options.yieldEverySteps ?? YIELD_EVERY_STEPS;
  const scanner = createPieceScanner(spec.pattern);
  /** Added tokens by their first UTF-16 code unit, longest first (matched with startsWith, no regex). */
  const addedByStart = new Map<number, string[]>();
  for (const token of [...spec.addedTokens].sort((left, right) => right.length - left.length)) {
    const list = addedByStart.get(token.charCodeAt(0)) ?? [];
    list.push(token);
    addedByStart.set(token.charCodeAt(0), list);
  }
  /** 1 at the UTF-16 code units an added token starts with: most characters are ruled out here. */
  const addedStarts = new Uint8Array(65_536);
  for (const start of addedByStart.keys()) addedStarts[start] = 1;
  /** The added token at text[at] that ends by `end`, or undefined. */
  const addedAt = (text: string, at: number, end: number): string | undefined =>
    addedByStart
      .get(text.charCodeAt(at))
      ?.find((token) => at + token.length <= end && text.startsWith(token, at));
  const chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
  const cutTokens = options.cutTokens ?? CUT_TOKENS;
  const merger = createBpeMerger(spec.model, chunkBytes);
  const bytes = new Uint8Array(chunkBytes);
  if (chunkBytes > MAX_MERGE_BYTES) throw new RangeError(`chunkBytes must be at most ${MAX_MERGE_BYTES}`);
  const words = createPieceCache({ slots: 32_768, maxLength: WORD_CHARACTERS });
  /** Chunks of long runs: one repeated character or long runs of spaces repeat them. */
  const chunks = createPieceCache({ slots: 512, maxLength: chunkBytes });
  /** The meter of the window being counted (set per window: counts of several requests interleave). */
  let activeMeter: WorkMeter = { steps: 0 };

  /** Tokens of text[range] merged at once (at most chunkBytes of UTF-8), through a cache. */
  function countMerged(cache: PieceCache, text: string, range: Range): number {
    const cached = cache.get(text, range);
    if (cached >= 0) return cached;
    const tokens = merger.count(bytes, { start: 0, end: toUtf8(text, range, bytes) }, activeMeter);
    cache.set(text, range, tokens);
    return tokens;
  }

  /** A piece: merged whole when short, else in chunks of at most chunkBytes, each cut charged. */
  function countPiece(text: string, range: Range): number {
    if (range.end - range.start <= WORD_CHARACTERS) return countMerged(words, text, range);
    let tokens = 0;
    for (let start = range.start; start < range.end;) {
      const end = toChunkEnd(text, { start, end: range.end }, chunkBytes);
      tokens += countMerged(chunks, text, { start, end });
      if (end < range.end) tokens += cutTokens;
      start = end;
    }
    return tokens;
  }

  function countPieces(text: string, range: Range): number {
    let tokens = 0;
    for (let start = range.start; start < range.end;) {
      const end = scanner.pieceEnd(text, start, range.end);
      tokens += countPiece(text, { start, end });
      start = end;
    }
    return tokens;
  }

  /** Tokens of text[start, end), added tokens first: each is one token, the text between them is pieces. */
  function countSegments(text: string, range: Range): number {
    if (addedByStart.size === 0) return countPieces(text, range);
    let tokens = 0;
    let from = range.start;
    for (let at = range.start; at < range.end; at++) {
      if (addedStarts[text.charCodeAt(at)] === 0) continue;
      const token = addedAt(text, at, range.end);
      if (token === undefined) continue;
      tokens += countPieces(text, { start: from, end: at }) + 1;
      from = at + token.length;
      at = from - 1;
    }
    return tokens + countPieces(text, { start: from, end: range.end });
  }

  /** One window: NFC (when a character could change), then its segments. */
  function countWindow(source: string, range: Range, meter: WorkMeter): number {
    activeMeter = meter;
    meter.steps += range.end - range.start;
    if (!spec.normalizeNfc || isNfcStable(source, range)) return countSegments(source, range);
    const text = source.slice(range.start, range.end).normalize('NFC');
    return countSegments(text, { start: 0, end: text.length });
  }

  return {
    async count(text, countOptions = {}) {
      const meter = countOptions.meter ?? { steps: 0 };
      const stopAbove = countOptions.stopAbove ?? Infinity;
      const { start: from, end } = countOptions.range ?? { start: 0, end: text.length };
      const shouldStop = countOptions.shouldStop ?? (() => false);
      let tokens = 0;
      let yieldedAt = meter.steps;
      for (let start = from; start < end && tokens <= stopAbove && !shouldStop(tokens);) {
        const cut = toWindowCut(text, start, WINDOW_CHARACTERS);
        tokens += countWindow(text, { start, end: cut.end }, meter) + (cut.exact ? 0 : cutTokens);
        start = cut.end;
        if (meter.steps - yieldedAt >= yieldEvery && start < end) {
          await yieldNow();
          yieldedAt = meter.steps;
        }
        if (countOptions.signal?.aborted === true)
          throw new RouterError({ code: 'CLIENT_CLOSED', message: 'client closed the connection' });
      }
      return tokens;
    },
  };
}
