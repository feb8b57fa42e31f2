/**
 * Per-request cost of the local classifier stages (heuristics + features + model), in microseconds,
 * on prompts of about 30 ("short"), 1k, 10k and 100k tokens built from eval/prompts.jsonl (the
 * "< 0.2 ms at p99" target). Each size is timed in `--rounds` separate rounds and the medians of the
 * rounds' p50 and p99 are printed, so one burst of load from another process does not decide the figure.
 * Usage:
 *
 *   nice -n 19 npx tsx scripts/classifier-cost.ts [--model file] [--mode local] [--rounds 5]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createLocalClassifier, type LocalMode } from '../src/classify/local-classifier.js';
import { loadLocalModel } from '../src/classify/local-model.js';

const { values: flags } = parseArgs({
  options: {
    model: { type: 'string', default: 'src/classify/model/local-model.json' },
    mode: { type: 'string', default: 'local' },
    prompts: { type: 'string', default: 'eval/prompts.jsonl' },
    rounds: { type: 'string', default: '5' },
    help: { type: 'boolean', default: false },
  },
});

/**
 * Prompt sizes in characters (about 4.5 characters per token of English prose and code); `short` is
 * the file's own prompts of at most SHORT_CHARS characters.
 */
const SIZES: readonly { name: string; chars: number; iterations: number }[] = [
  { name: 'short', chars: 0, iterations: 4000 },
  { name: '1k', chars: 4_500, iterations: 2000 },
  { name: '10k', chars: 45_000, iterations: 600 },
  { name: '100k', chars: 450_000, iterations: 200 },
];

const SHORT_CHARS = 300;

function readTexts(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const entry = JSON.parse(line) as { prompt?: string; messages?: { content?: unknown }[] };
      return (
        entry.prompt ??
        (entry.messages ?? []).map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n\n')
      );
    });
}

/** Texts appended (cycling from `start`) until `chars` characters; 0 means the texts themselves. */
function toPrompt(texts: readonly string[], chars: number, start: number): string {
  let text = '';
  for (let index = start; text.length < chars; index += 1) text += `${texts[index % texts.length]}\n\n`;
  return text.slice(0, chars);
}

function percentile(sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
}

/** Median of a few numbers. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** p50 and p99 of `iterations` timed calls, in microseconds. */
function timeRound(work: (index: number) => void, iterations: number): { p50: number; p99: number } {
  const durations: number[] = [];
  for (let index = 0; index < iterations; index += 1) {
    const started = performance.now();
    work(index);
    durations.push((performance.now() - started) * 1000);
  }
  durations.sort((a, b) => a - b);
  return { p50: percentile(durations, 0.5), p99: percentile(durations, 0.99) };
}

function main(): void {
  if (flags.help) {
    console.log(
      'usage: npx tsx scripts/classifier-cost.ts [--model file] [--mode heuristic|learned|local] [--rounds 5]',
    );
    return;
  }
  const mode = flags.mode as LocalMode;
  const model = mode === 'heuristic' ? undefined : loadLocalModel(flags.model);
  const classifier = createLocalClassifier({ mode, ...(model === undefined ? {} : { model }) });
  const texts = readTexts(flags.prompts);
  const shortTexts = texts.filter((text) => text.length <= SHORT_CHARS);
  console.log(
    `mode ${mode}; microseconds per request (toClassifyInput + heuristics + model), median of ${flags.rounds} rounds`,
  );
  const workloads = SIZES.map((size) => {
    const variants = Array.from({ length: 16 }, (_, index) =>
      size.chars === 0 ? (shortTexts[index * 7] ?? '') : toPrompt(texts, size.chars, index * 11),
    );
    const requests = variants.map((content) => ({
      messages: [
        { role: 'system' as const, content: 'You are a helpful assistant.' },
        { role: 'user' as const, content },
      ],
    }));
    const classify = (index: number): unknown =>
      classifier.classifyLocal(requests[index % requests.length] ?? { messages: [] });
    for (let index = 0; index < 200; index += 1) classify(index);
    const chars = Math.round(variants.reduce((sum, text) => sum + text.length, 0) / variants.length);
    return { size, classify, chars, rounds: [] as { p50: number; p99: number }[] };
  });
  // Rounds interleave the sizes, so a burst of load elsewhere hits every size alike.
  for (let round = 0; round < Number(flags.rounds); round += 1) {
    for (const workload of workloads)
      workload.rounds.push(timeRound(workload.classify, workload.size.iterations));
  }
  for (const { size, chars, rounds } of workloads) {
    const p50 = median(rounds.map((entry) => entry.p50));
    const p99 = median(rounds.map((entry) => entry.p99));
    console.log(
      `  ${size.name.padEnd(6)} ${String(chars).padStart(7)} chars  p50 ${p50.toFixed(1).padStart(7)} us  p99 ${p99.toFixed(1).padStart(7)} us`,
    );
  }
}

main();
