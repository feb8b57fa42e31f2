import { loadQwen3 } from './load-qwen3.js';
import { loadTiktoken } from './load-tiktoken.js';
import { createTextCounter, type TextCounter, type TextCounterOptions } from './text-counter.js';
import type { TokenizerName } from './tokenizer-name.js';
import type { TokenizerSpec } from './tokenizer-spec.js';

/** One tokenizer's vocabulary and merges, read from its package (Qwen's in about a second). */
export function loadTokenizerSpec(name: TokenizerName): Promise<TokenizerSpec> {
  return name === 'qwen3' ? loadQwen3() : loadTiktoken(name);
}

/** A text counter for one tokenizer, its vocabulary read from its package (Qwen's in about a second). */
export async function loadTextCounter(
  name: TokenizerName,
  options: Omit<TextCounterOptions, 'spec'> = {},
): Promise<TextCounter> {
  return createTextCounter({ ...options, spec: await loadTokenizerSpec(name) });
}
