import { loadQwen3 } from './load-qwen3.js';
import { loadTiktoken } from './load-tiktoken.js';
import { createTextCounter, type TextCounter, type TextCounterOptions } from './text-counter.js';
import type { TokenizerName } from './tokenizer-name.js';

/** A text counter for one tokenizer, its vocabulary read from its package (Qwen's in about a second). */
export async function loadTextCounter(
  name: TokenizerName,
  options: Omit<TextCounterOptions, 'spec'> = {},
): Promise<TextCounter> {
  const spec = name === 'qwen3' ? await loadQwen3() : await loadTiktoken(name);
  return createTextCounter({ ...options, spec });
}
