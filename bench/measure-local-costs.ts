import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalClassifier, type LocalClassifier } from '../src/classify/local-classifier.js';
import { loadLocalModel } from '../src/classify/local-model.js';
import { createTokenCounter, type TokenCounter } from '../src/policy/token-counter.js';
import { createCountPool } from '../src/tokenizers/count-pool.js';
import { percentile } from './percentiles.js';
import { round3 } from './stats.js';

/** Prompt sizes the local costs are measured at, in o200k_base tokens. */
export const PROMPT_SIZES = { '1k': 1_000, '10k': 10_000, '100k': 100_000 } as const;
export type PromptSize = keyof typeof PROMPT_SIZES;

/**
 * `en`: English prompts of eval/prompts.jsonl only. `mixed`: the whole file (English, code, Korean,
 * Chinese, Japanese); its CJK runs have no spaces, the slow case for BPE.
 */
export const CORPORA = ['en', 'mixed'] as const;
export type Corpus = (typeof CORPORA)[number];

export interface CostFigures {
  /** Median and p99 per-request cost, in microseconds. */
  medianUs: number;
  p99Us: number;
  iterations: number;
}

export interface CorpusCosts {
  /** Token count of each generated prompt (sum of its texts' o200k_base counts, no margin). */
  promptTokens: Record<PromptSize, number>;
  heuristic: Record<PromptSize, CostFigures>;
  /** Absent when no model file was given. */
  local?: Record<PromptSize, CostFigures>;
  tokenCount: Record<PromptSize, CostFigures>;
  /** Longest time the event loop could not run a setImmediate callback while counting the 100k prompt, in ms. */
  maxStallWhileCounting100kMs: number;
}

/** The fleet's tokenizer (Qwen3), as the default routing table counts. */
const SETTINGS = { tokenizers: ['qwen3' as const], safetyMargin: 0.1, imageTokens: 1024 };
const SIZES = Object.keys(PROMPT_SIZES) as PromptSize[];
const CLASSIFY_ITERATIONS: Record<PromptSize, number> = { '1k': 400, '10k': 100, '100k': 30 };
const COUNT_ITERATIONS: Record<PromptSize, number> = { '1k': 100, '10k': 10, '100k': 2 };

/**
 * In-process per-request cost of the local classifier (heuristic mode always; `local` mode when a
 * model file is given) and of the context-length token count on 1k, 10k and 100k-token prompts (the
 * 100k ones on the counting threads, as a service counts them).
 * Runs before any server starts, so nothing else of the bench competes for the CPU.
 */
export async function measureLocalCosts(options: {
  projectRoot: string;
  modelFile: string | undefined;
  /** Divides the iteration counts (quick mode). @default 1 */
  scale?: number;
}): Promise<Record<Corpus, CorpusCosts>> {
  // the counting threads ready before any timing, as in a service after its first long prompt (the
  // 100k-token prompts go to them; the smaller ones are counted in-process)
  const pool = createCountPool();
  await pool.prepare('qwen3');
  const counter = createTokenCounter({ cacheCharacters: 0, pool });
  const heuristic = createLocalClassifier({ mode: 'heuristic' });
  const local =
    options.modelFile === undefined
      ? undefined
      : createLocalClassifier({ mode: 'local', model: loadLocalModel(options.modelFile) });
  const texts = await readTexts(join(options.projectRoot, 'eval/prompts.jsonl'), counter);
  const costs: Partial<Record<Corpus, CorpusCosts>> = {};
  for (const corpus of CORPORA) {
    const prompts = toPrompts(texts.filter((text) => corpus === 'mixed' || text.lang === 'en'));
    costs[corpus] = await measureCorpus({ counter, heuristic, local, prompts, scale: options.scale ?? 1 });
  }
  await counter.close();
  return costs as Record<Corpus, CorpusCosts>;
}

async function measureCorpus(options: {
  counter: TokenCounter;
  heuristic: LocalClassifier;
  local: LocalClassifier | undefined;
  prompts: Record<PromptSize, Prompt>;
  scale: number;
}): Promise<CorpusCosts> {
  const { counter, heuristic, local, prompts, scale } = options;
  const promptTokens = {} as Record<PromptSize, number>;
  const heuristicCosts = {} as Record<PromptSize, CostFigures>;
  const localCosts = {} as Record<PromptSize, CostFigures>;
  const tokenCount = {} as Record<PromptSize, CostFigures>;
  let maxStallWhileCounting100kMs = 0;
  for (const size of SIZES) {
    const request = toRequest(prompts[size].text);
    promptTokens[size] = prompts[size].tokens;
    const iterations = Math.max(5, Math.round(CLASSIFY_ITERATIONS[size] / scale));
    heuristicCosts[size] = timeSync(() => heuristic.classifyLocal(request), iterations);
    if (local !== undefined) localCosts[size] = timeSync(() => local.classifyLocal(request), iterations);
    const counts = Math.max(1, Math.round(COUNT_ITERATIONS[size] / scale));
    if (size !== '100k')
      tokenCount[size] = await timeAsync(() => counter.countChat(request, SETTINGS), counts);
    else {
      // The smaller sizes already warmed the encoder up; the stall probe runs during the timed counts.
      const probe = startStallProbe();
      tokenCount[size] = await timeAsync(() => counter.countChat(request, SETTINGS), counts, false);
      maxStallWhileCounting100kMs = await probe.stop();
    }
  }
  return {
    promptTokens,
    heuristic: heuristicCosts,
    ...(local === undefined ? {} : { local: localCosts }),
    tokenCount,
    maxStallWhileCounting100kMs,
  };
}

function toRequest(prompt: string) {
  return {
    messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: prompt },
    ],
  };
}

interface Text {
  lang: string;
  text: string;
  /** Tokens of the text plus the separator that follows it. */
  tokens: number;
}

const SEPARATOR = '\n\n';

/** Each line's `prompt`, or the text of its `messages` joined, with its language and token count. */
async function readTexts(file: string, counter: TokenCounter): Promise<Text[]> {
  const entries = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(
      (line) => JSON.parse(line) as { lang?: string; prompt?: string; messages?: { content?: unknown }[] },
    );
  const texts: Text[] = [];
  for (const entry of entries) {
    const text =
      entry.prompt ??
      (entry.messages ?? [])
        .map((message) => (typeof message.content === 'string' ? message.content : ''))
        .join(SEPARATOR);
    const count = await counter.countText(`${text}${SEPARATOR}`, { tokenizers: ['qwen3'], safetyMargin: 0 });
    texts.push({ lang: entry.lang ?? '', text, tokens: count.tokens });
  }
  return texts;
}

/**
 * Texts of 1k, 10k and 100k tokens: whole texts appended (cycling through the list) while they fit,
 * then the share of the next text that fills the rest (cut by its own characters-per-token ratio).
 */
interface Prompt {
  text: string;
  tokens: number;
}

function toPrompts(texts: readonly Text[]): Record<PromptSize, Prompt> {
  const build = (target: number): Prompt => {
    const parts: string[] = [];
    let tokens = 0;
    for (let index = 0; tokens < target; index += 1) {
      const { text, tokens: count } = texts[index % texts.length] ?? { text: '', tokens: 1 };
      const share = Math.min(1, (target - tokens) / count);
      parts.push(share < 1 ? text.slice(0, Math.round(text.length * share)) : text);
      tokens += share < 1 ? target - tokens : count;
    }
    return { text: parts.join(SEPARATOR), tokens };
  };
  return {
    '1k': build(PROMPT_SIZES['1k']),
    '10k': build(PROMPT_SIZES['10k']),
    '100k': build(PROMPT_SIZES['100k']),
  };
}

function toFigures(durationsMs: number[]): CostFigures {
  const sorted = durationsMs.sort((left, right) => left - right);
  return {
    medianUs: round3(percentile(sorted, 50) * 1000),
    p99Us: round3(percentile(sorted, 99) * 1000),
    iterations: sorted.length,
  };
}

function timeSync(work: () => unknown, iterations: number): CostFigures {
  for (let index = 0; index < Math.min(20, iterations); index += 1) work();
  const durations: number[] = [];
  for (let index = 0; index < iterations; index += 1) {
    const started = performance.now();
    work();
    durations.push(performance.now() - started);
  }
  return toFigures(durations);
}

async function timeAsync(
  work: () => Promise<unknown>,
  iterations: number,
  warmUp = true,
): Promise<CostFigures> {
  if (warmUp) await work();
  const durations: number[] = [];
  for (let index = 0; index < iterations; index += 1) {
    const started = performance.now();
    await work();
    durations.push(performance.now() - started);
  }
  return toFigures(durations);
}

/**
 * A setImmediate callback that re-arms itself; the largest time between two of its runs is the
 * longest stretch the event loop was blocked (a request arriving then would have waited that long).
 */
function startStallProbe(): { stop(): Promise<number> } {
  let longest = 0;
  let last = performance.now();
  let running = true;
  const probe = (): void => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(probe);
  };
  setImmediate(probe);
  return {
    stop: async () => {
      running = false;
      await new Promise((resolve) => setImmediate(resolve));
      return round3(longest);
    },
  };
}
