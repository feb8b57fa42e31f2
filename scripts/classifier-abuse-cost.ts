/**
 * Cost of each local classifier stage on hostile inputs, against the same stage on a normal
 * prompt of about 1k tokens timed in the same run. For every input and size it prints the median and
 * worst time per stage in microseconds and the ratio of the median to the baseline's median. Inputs:
 * test/helpers/hostile-inputs.ts (one character of each class repeated, alternations, ReDoS attack
 * strings, many messages, many parts, long lines, long earlier turns). Usage:
 *
 *   nice -n 19 node --expose-gc --import tsx scripts/classifier-abuse-cost.ts [--sizes 900,1000000,20000000] [--runs 15]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { toCacheKey } from '../src/classify/classification-cache.js';
import { toClassifyInput } from '../src/classify/classify-input.js';
import type { ClassifyRequest } from '../src/classify/decision.js';
import { scoreHeuristics } from '../src/classify/heuristics.js';
import { createLearnedClassifier } from '../src/classify/learned-classifier.js';
import { createLocalClassifier } from '../src/classify/local-classifier.js';
import { loadLocalModel } from '../src/classify/local-model.js';
import { parseClassifierReply } from '../src/classify/parse-classifier-reply.js';
import { toMessageText } from '../src/shared/chat.js';
import {
  HOSTILE_UNITS,
  repeatTo,
  HOSTILE_SHAPES,
  type HostileRequest,
} from '../test/helpers/hostile-inputs.js';

const { values: flags } = parseArgs({
  options: {
    model: { type: 'string', default: 'src/classify/model/local-model.json' },
    prompts: { type: 'string', default: 'eval/prompts.jsonl' },
    sizes: { type: 'string', default: '900,1000000,20000000' },
    runs: { type: 'string', default: '15' },
  },
});

/** Characters of the baseline prompt: about 1k tokens of English prose and code. */
const BASELINE_CHARS = 4_500;
const STAGES = ['input', 'heuristics', 'learned', 'local', 'cacheKey', 'reply'] as const;
type Stage = (typeof STAGES)[number];

const model = loadLocalModel(flags.model);
const local = createLocalClassifier({ mode: 'local', model });
const learned = createLearnedClassifier({ model });

/** One call of each stage on a request; the stages after `input` get its output, built once. */
function toStageCalls(request: ClassifyRequest): Record<Stage, () => unknown> {
  const input = toClassifyInput(request);
  const heuristic = scoreHeuristics(input);
  const reply = toMessageText(request.messages[request.messages.length - 1]?.content);
  return {
    input: () => toClassifyInput(request),
    heuristics: () => scoreHeuristics(input),
    learned: () => learned.predict({ input, profile: heuristic.profile, signals: heuristic.signals }),
    local: () => local.classifyLocal(request),
    cacheKey: () => toCacheKey(input, ''),
    reply: () => parseClassifierReply(reply),
  };
}

/** Median and worst of `runs` timed calls, in microseconds. */
function time(call: () => unknown, runs: number): { median: number; worst: number } {
  call();
  const durations: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    call();
    durations.push((performance.now() - started) * 1000);
  }
  durations.sort((a, b) => a - b);
  return {
    median: durations[Math.floor(durations.length / 2)] ?? 0,
    worst: durations[durations.length - 1] ?? 0,
  };
}

function readBaseline(file: string): ClassifyRequest {
  let text = '';
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (text.length >= BASELINE_CHARS) break;
    if (line.trim() !== '') text += `${(JSON.parse(line) as { prompt?: string }).prompt ?? ''}\n\n`;
  }
  return { messages: [{ role: 'user', content: text.slice(0, BASELINE_CHARS) }] };
}

function measure(request: ClassifyRequest, runs: number): Record<Stage, { median: number; worst: number }> {
  const calls = toStageCalls(request);
  return Object.fromEntries(STAGES.map((stage) => [stage, time(calls[stage], runs)])) as Record<
    Stage,
    { median: number; worst: number }
  >;
}

function toHostileCase(size: number, index: number): HostileRequest {
  const units = Object.entries(HOSTILE_UNITS);
  const [name, unit] = units[index] ?? ['', ''];
  if (index < units.length) {
    return { name, request: { messages: [{ role: 'user', content: repeatTo(unit, size) }] }, length: size };
  }
  const build = Object.values(HOSTILE_SHAPES)[index - units.length];
  if (build === undefined) throw new Error(`no hostile case ${index}`);
  return build(size);
}

/** A full collection between cases when node runs with --expose-gc: one case's garbage is not timed in the next. */
function collectGarbage(): void {
  const { gc } = globalThis as { gc?: () => void };
  gc?.();
}

function main(): void {
  const sizes = flags.sizes.split(',').map(Number);
  const runs = Number(flags.runs);
  const baseline = measure(readBaseline(flags.prompts), runs * 20);
  console.log(`stage medians (worst) in microseconds; x = median / baseline median; ${runs} runs per cell`);
  console.log(
    `baseline ${BASELINE_CHARS}-char prompt: ${STAGES.map((stage) => `${stage} ${baseline[stage].median.toFixed(1)}`).join(', ')}`,
  );
  const worstRatio = Object.fromEntries(STAGES.map((stage) => [stage, { ratio: 0, where: '' }]));
  for (const size of sizes) {
    // built one at a time, so the requests already measured can be collected and do not slow the rest
    const count = Object.keys(HOSTILE_UNITS).length + Object.keys(HOSTILE_SHAPES).length;
    const cellRuns = size > 2_000_000 ? Math.min(runs, 5) : runs;
    console.log(`\nsize ${size} characters`);
    console.log(`${'input'.padEnd(22)}${STAGES.map((stage) => stage.padStart(26)).join('')}`);
    for (let index = 0; index < count; index += 1) {
      collectGarbage();
      const { name, request } = toHostileCase(size, index);
      const result = measure(request, cellRuns);
      const cells = STAGES.map((stage) => {
        const ratio = result[stage].median / Math.max(baseline[stage].median, 0.1);
        const worst = worstRatio[stage];
        if (worst !== undefined && ratio > worst.ratio)
          Object.assign(worst, { ratio, where: `${name} @ ${size}` });
        const text = `${result[stage].median.toFixed(1)} (${result[stage].worst.toFixed(0)}) x${ratio.toFixed(1)}`;
        return text.padStart(26);
      });
      console.log(`${name.padEnd(22)}${cells.join('')}`);
    }
  }
  console.log('\nhighest ratio per stage:');
  for (const stage of STAGES) {
    const worst = worstRatio[stage];
    console.log(`  ${stage.padEnd(12)} x${worst?.ratio.toFixed(1) ?? '?'}  ${worst?.where ?? ''}`);
  }
}

main();
