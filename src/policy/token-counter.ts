import type { CancelSignal } from '../shared/cancel-signal.js';
import { countImageParts, countUncountedParts } from '../shared/chat.js';
import { createCountCache } from './count-cache.js';
import { toTemplateParts, type ChatToCount } from '../tokenizers/chat-template.js';
import { createCountPool, type CountPool } from '../tokenizers/count-pool.js';
import { createSharedSpecLoader } from '../tokenizers/load-shared-spec.js';
import { createTextCounter, type CountOptions, type TextCounter } from '../tokenizers/text-counter.js';
import { toTokenizerName, type TokenizerName } from '../tokenizers/tokenizer-name.js';
import { fromSharedSpec } from '../tokenizers/tokenizer-spec.js';

export type { ChatToCount } from '../tokenizers/chat-template.js';
export type { TokenizerName } from '../tokenizers/tokenizer-name.js';

/**
 * Prompt tokens of one request under each tokenizer in use. `tokens`, the largest of them, is what is
 * reported and charged: logs, /v1/route, key TPM and budget reservations, deployment TPM quotas (the
 * request may go to any deployment of its plan, so the largest count is the one that cannot be too
 * small). The context-window check uses each deployment's own count (`toDeploymentTokens`).
 */
export interface PromptCount {
  /** Margin included. */
  byTokenizer: ReadonlyMap<TokenizerName, number>;
  tokens: number;
  /** True when nothing near a window made an exact count worth it: an estimate from the characters. */
  estimated: boolean;
  /**
   * Content parts the count leaves out because no text count can see their tokens (video, audio,
   * files: see countUncountedParts). @default 0
   */
  uncountedParts?: number;
}

export interface CountRequestOptions {
  /** The tokenizers to count with (the distinct ones among the table's deployments). */
  tokenizers: readonly TokenizerName[];
  /** Fraction added to each count for what is not counted exactly (template joins, tool rendering). */
  safetyMargin: number;
  /** Tokens per image part (a 1024x1024 image is about 1,000 vision tokens in Qwen-VL). */
  imageTokens?: number;
  /**
   * When even the upper bound (UTF-8 bytes: a byte-level BPE token is at least one byte), margin
   * included, is at or below this many tokens, no decision depends on the exact size: the count is
   * estimated from the characters. Undefined or 0: always count.
   */
  estimateBelow?: number | undefined;
  /** Counting stops once a count is above this (nothing fits past the largest window). */
  stopAbove?: number | undefined;
  /** The request's signal: a client that goes away stops the count (CLIENT_CLOSED). */
  signal?: CancelSignal | undefined;
}

export interface TokenCounter {
  /** Prompt tokens of a chat request: messages in the chat template, tool definitions, images. */
  countChat(request: ChatToCount, options: CountRequestOptions): Promise<PromptCount>;
  /** Prompt tokens of a plain text (a legacy completion prompt). */
  countText(text: string, options: CountRequestOptions): Promise<PromptCount>;
  /**
   * Prompt tokens of several texts sent as separate prompts (a legacy completion's `prompt` array):
   * `tokens` is their sum, each text counted with the table's tokenizers while the running sum stays
   * within `stopAbove`; past it the rest are charged their UTF-8 bytes (a bound no byte-level BPE
   * exceeds) with the margin, so the work stays within about two windows. `largest` is the largest prompt
   * counted exactly (for the context-length check; prompts past the stop are left to the server's).
   */
  countTexts(
    texts: readonly string[],
    options: CountRequestOptions,
  ): Promise<{ sum: PromptCount; largest: PromptCount }>;
  /**
   * Loads tokenizers now (Qwen's vocabulary takes about a second), not on a client's request. With
   * `threads`, the counting threads then load them too, in the background (resolves before they do),
   * so the first long prompts after start are counted in parallel rather than in-process.
   */
  prepare(tokenizers: readonly TokenizerName[], options?: { threads?: boolean }): Promise<void>;
  /** Ends the counting threads (counts after this run in-process). */
  close(): Promise<void>;
}

export interface TokenCounterOptions {
  /** Characters of recent texts whose counts are kept, per tokenizer, 0 = none. @default 4000000 */
  cacheCharacters?: number;
  /** Tokenizer loaders (tests pass their own). */
  load?: (name: TokenizerName) => Promise<TextCounter>;
  /**
   * Threads that count long texts in parallel (each loads the tokenizers it counts with, about 1 s
   * of CPU for Qwen's), 0 = none. @default min(4, availableParallelism()); 0 with a custom `load`
   */
  countThreads?: number | undefined;
  /** Texts of at least this many UTF-8 bytes are counted on the threads. @default PARALLEL_FROM */
  parallelFrom?: number;
  /** The threads (tests pass their own). @default a pool of `countThreads` */
  pool?: CountPool;
}

/**
 * Texts of at least this many UTF-8 bytes are counted on the threads. Counting time goes with bytes:
 * in-process, 64 Ki characters of English or DNA (64 KiB) took about 8 ms, 64 Ki CJK characters
 * (192 KiB) 29 ms. Measured with 2 threads on a 2-core machine (scripts/token-count-cost.ts --pool):
 * at 64 Ki characters the threads took 3.1-3.3 ms where in-process took 7.9-8.3 (English, DNA,
 * base64), at 32 Ki 2.4-2.7 against 2.4-3.8, at 16 Ki no less. Posting a segment and back costs
 * about 0.1 ms plus 1 ms per MB copied. Below this the common path stays free of messages, and a
 * server that never sees a longer text starts no thread.
 */
export const PARALLEL_FROM = 65_536;

/** A count of the texts that no encoding can exceed: their UTF-8 bytes. */
function toByteBound(texts: readonly string[]): number {
  let bytes = 0;
  for (const text of texts) bytes += Buffer.byteLength(text, 'utf8');
  return bytes;
}

/** Han, kana and Hangul: about a token each; other text about four characters a token. */
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/gu;

function toEstimate(texts: readonly string[]): number {
  let tokens = 0;
  for (const text of texts) {
    const cjk = text.match(CJK)?.length ?? 0;
    tokens += Math.ceil(cjk + (text.length - cjk) / 4);
  }
  return tokens;
}

export function createTokenCounter(options: TokenCounterOptions = {}): TokenCounter {
  /** Each tokenizer's tables, loaded once and shared by this counter and its threads. */
  const specOf = createSharedSpecLoader();
  const load =
    options.load ??
    ((name: TokenizerName) => specOf(name).then((spec) => createTextCounter({ spec: fromSharedSpec(spec) })));
  const pool =
    options.pool ??
    createCountPool({
      threads: options.countThreads ?? (options.load === undefined ? undefined : 0),
      loadSpec: specOf,
    });
  const parallelFrom = options.parallelFrom ?? PARALLEL_FROM;
  const counters = new Map<TokenizerName, Promise<TextCounter>>();
  const cacheCharacters = options.cacheCharacters ?? 4_000_000;
  const caches = new Map<TokenizerName, ReturnType<typeof createCountCache>>();
  const counterOf = (name: TokenizerName): Promise<TextCounter> => {
    let counter = counters.get(name);
    if (counter === undefined) {
      counter = load(name);
      counters.set(name, counter);
      counter.catch(() => counters.delete(name));
    }
    return counter;
  };
  const cacheOf = (name: TokenizerName): ReturnType<typeof createCountCache> | undefined => {
    if (cacheCharacters === 0) return undefined;
    let cache = caches.get(name);
    if (cache === undefined) {
      cache = createCountCache({ maxCharacters: cacheCharacters });
      caches.set(name, cache);
    }
    return cache;
  };

  /** At least parallelFrom UTF-8 bytes (a UTF-16 unit is 1 to 3 bytes: most texts need no byte count). */
  const isLong = (text: string): boolean =>
    text.length >= parallelFrom ||
    (3 * text.length >= parallelFrom && Buffer.byteLength(text, 'utf8') >= parallelFrom);

  /** A long text on the threads when they have the tokenizer, else (and any other text) in-process. */
  async function countOne(
    input: { name: TokenizerName; counter: TextCounter; text: string },
    countOptions: CountOptions,
  ): Promise<number> {
    if (isLong(input.text)) {
      const pooled = await pool.count(input.name, input.text, countOptions);
      if (pooled !== undefined) return pooled.tokens;
    }
    return input.counter.count(input.text, countOptions);
  }

  /** Sum of the texts' counts under one tokenizer, stopping above `stopAbove`. */
  async function countTexts(
    name: TokenizerName,
    texts: readonly string[],
    options: CountRequestOptions,
  ): Promise<number> {
    const counter = await counterOf(name);
    const cache = cacheOf(name);
    const stopAbove = options.stopAbove ?? Infinity;
    let tokens = 0;
    for (const text of texts) {
      if (tokens > stopAbove) break;
      const cached = cache?.get(text);
      if (cached !== undefined) {
        tokens += cached;
        continue;
      }
      const left = stopAbove - tokens;
      const counted = await countOne({ name, counter, text }, { signal: options.signal, stopAbove: left });
      if (counted <= left) cache?.set(text, counted);
      tokens += counted;
    }
    return tokens;
  }

  async function count(
    texts: readonly string[],
    fixed: number,
    options: CountRequestOptions,
  ): Promise<PromptCount> {
    const withMargin = (tokens: number): number => Math.ceil(tokens * (1 + options.safetyMargin));
    const estimateBelow = options.estimateBelow ?? 0;
    const byTokenizer = new Map<TokenizerName, number>();
    if (estimateBelow > 0 && withMargin(fixed + toByteBound(texts)) <= estimateBelow) {
      const estimate = withMargin(fixed + toEstimate(texts));
      for (const name of options.tokenizers) byTokenizer.set(name, estimate);
      return { byTokenizer, tokens: estimate, estimated: true };
    }
    for (const name of options.tokenizers)
      byTokenizer.set(name, withMargin(fixed + (await countTexts(name, texts, options))));
    return { byTokenizer, tokens: Math.max(0, ...byTokenizer.values()), estimated: false };
  }

  return {
    async countChat(request, options) {
      let images = 0;
      let uncounted = 0;
      for (const message of request.messages) {
        images += countImageParts(message.content);
        uncounted += countUncountedParts(message.content);
      }
      const counted = await count(toTemplateParts(request), images * (options.imageTokens ?? 0), options);
      return uncounted === 0 ? counted : Object.assign(counted, { uncountedParts: uncounted });
    },
    countText: (text, options) => count([text], 0, options),
    async countTexts(texts, options) {
      const stopAbove = options.stopAbove ?? Infinity;
      const byTokenizer = new Map<TokenizerName, number>();
      let largest: PromptCount | undefined;
      let exact = 0;
      let estimated = false;
      for (const text of texts) {
        if (exact > stopAbove) {
          const bound = Math.ceil(toByteBound([text]) * (1 + options.safetyMargin));
          for (const name of options.tokenizers) byTokenizer.set(name, (byTokenizer.get(name) ?? 0) + bound);
          continue;
        }
        const one = await count([text], 0, options);
        for (const [name, tokens] of one.byTokenizer)
          byTokenizer.set(name, (byTokenizer.get(name) ?? 0) + tokens);
        exact += one.tokens;
        estimated ||= one.estimated;
        if (largest === undefined || one.tokens > largest.tokens) largest = one;
      }
      const sum = { byTokenizer, tokens: Math.max(0, ...byTokenizer.values()), estimated };
      return { sum, largest: largest ?? sum };
    },
    async prepare(tokenizers, prepareOptions) {
      // one at a time: each load's thread peaks at about 100 MiB before it ends
      for (const name of tokenizers) await counterOf(name);
      if (prepareOptions?.threads === true)
        for (const name of tokenizers) pool.prepare(name).catch(() => undefined);
    },
    close: () => pool.close(),
  };
}

/** The count that decides whether a prompt fits a deployment: its own tokenizer's, else the largest. */
export function toDeploymentTokens(
  count: PromptCount,
  deployment: Parameters<typeof toTokenizerName>[0],
): number {
  return count.byTokenizer.get(toTokenizerName(deployment)) ?? count.tokens;
}
