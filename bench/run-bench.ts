// The benchmark: `npm run bench` (about 6 minutes) or `npm run bench -- --quick`.
// Flags: --quick, --router auto|dist|build|tsx, --no-portkey, --no-references, --profile /
// --no-profile, --no-workers, --out <file> (default bench/results/latest.json), --memory-only (the
// production start's memory beside Portkey's, about 25 s, printed; nothing written). See bench/README.md.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startAutotierProcess, type AutotierProcess } from './autotier-process.js';
import type { BenchData, Unavailable } from './bench-data.js';
import { BODIES } from './bench-fleet.js';
import { FULL_SETTINGS, QUICK_SETTINGS, type BenchSettings } from './bench-settings.js';
import { requireTarget, startStack, type Stack } from './bench-stack.js';
import { isDistFresh, prepareCodeEntries, type EntryKind } from './code-entries.js';
import { resolveModelFile } from './local-model-file.js';
import type { Frontier } from './measure-frontier.js';
import { measureAbuse, type AbuseMeasurement } from './measure-abuse.js';
import { measureLocalCosts } from './measure-local-costs.js';
import { measureProductionStart, type ProductionStartMemory } from './measure-production-start.js';
import { measureTokenAccuracy } from './measure-token-accuracy.js';
import { measureRouters, searchFrontier } from './measure-routers.js';
import { formatReport } from './print-report.js';
import { profileAutotier } from './profile-autotier.js';
import { toReport } from './report.js';
import { toTargets } from './routes.js';
import { verifyTargets } from './verify-routes.js';
import { startBenchRun } from './bench-run.js';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    router: { type: 'string', default: 'auto' },
    'no-portkey': { type: 'boolean', default: false },
    'no-references': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    'no-profile': { type: 'boolean', default: false },
    'no-workers': { type: 'boolean', default: false },
    'memory-only': { type: 'boolean', default: false },
    out: { type: 'string', default: join(projectRoot, 'bench/results/latest.json') },
  },
});
const settings: BenchSettings = flags.quick ? QUICK_SETTINGS : FULL_SETTINGS;
const { started: benchStarted, log, cleanups, cleanUp } = startBenchRun('bench');

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  const loadAtStart = round1(loadavg()[0] ?? 0);
  const tempDir = mkdtempSync(join(tmpdir(), 'autotier-bench-'));
  cleanups.push(() => rmSync(tempDir, { recursive: true, force: true }));

  log('preparing autotier and the simulator');
  const preference = flags.router as EntryKind | 'auto';
  const entries = await prepareCodeEntries({ projectRoot, preference, buildAllowed: !flags.quick });
  cleanups.push(() => entries.cleanup());
  const notes = [...entries.notes];
  const model = await resolveModelFile({ projectRoot, tempDir });
  if (model.standIn)
    notes.push(
      'src/classify/model/local-model.json is missing: a stand-in model was trained from data/written-train.jsonl for this run (same format; cost representative, accuracy not)',
    );

  log('memory of a production start (node dist/main.js, default table) and of Portkey, idle after 10 s');
  const productionStart = await measureProductionStartSection(!flags['no-portkey']);

  log('measuring the classifier and the token counter in-process');
  const costs = await measureLocalCosts({ projectRoot, modelFile: model.path, scale: settings.costScale });
  log('measuring token counts of the eval prompts against the exact encoders');
  const tokenAccuracy = await measureTokenAccuracy(projectRoot);

  log('starting the simulator, Portkey, autotier and the reference proxies');
  const withPortkey = !flags['no-portkey'];
  const stack = await startStack({
    entries,
    tempDir,
    modelFile: model.path,
    projectRoot,
    withPortkey,
    withReferences: !flags['no-references'],
    cleanups,
  });
  const routers = await measureRouters({ stack, settings, log });
  for (const reference of [stack.nginx, stack.nodeFloor])
    if ('unavailable' in reference) notes.push(`reference proxy: ${reference.unavailable}`);
  notes.push(
    `idle RSS: after the concurrency-1 runs and a ${settings.settleMs / 1000} s pause; after-load RSS: ${settings.afterLoadMs / 1000} s after the frontier and stream runs (autotier hands memory back after 30 s without a request)`,
  );
  const meta = {
    startedAt,
    durationSeconds: 0,
    quick: flags.quick,
    node: process.version,
    cpus: cpus().length,
    loadAverage: { start: loadAtStart, end: 0 },
    router: entries.kind,
    notes,
  };
  const data: BenchData = { meta, costs, tokenAccuracy, ...routers };
  data.memory.productionStart = productionStart;
  data.abuse = await measureAbuseSection(stack);
  data.frontier.autotierWorkers2 = await measureWorkers2(stack);
  if (wantsProfile()) data.profile = await runProfile(stack, data, tempDir);
  await stack.runner.close();
  finishMeta(data);
  writeReport(data);
}

/**
 * The production start's memory, from dist/ as `npm run build` left it (with the compiled tokenizer
 * tables); unavailable when dist/ is missing or older than src/ (a bench-only build is not what ships).
 */
async function measureProductionStartSection(
  withPortkey: boolean,
): Promise<ProductionStartMemory | Unavailable> {
  const distDir = join(projectRoot, 'dist');
  if (!isDistFresh(projectRoot))
    return { unavailable: 'dist/ is missing or older than src/: run npm run build first' };
  try {
    return await measureProductionStart({ projectRoot, distDir, withPortkey });
  } catch (error) {
    return { unavailable: `production start failed: ${(error as Error).message}` };
  }
}

/** The abuse section against the single-process autotier; a failure is reported, not fatal. */
async function measureAbuseSection(stack: Stack): Promise<AbuseMeasurement | Unavailable> {
  try {
    return await measureAbuse({
      runner: stack.runner,
      autotierBaseUrl: stack.bases.autotier,
      normalBody: BODIES.zero,
      requests: settings.abuseRequests,
      log,
    });
  } catch (error) {
    return { unavailable: `abuse section failed: ${(error as Error).message}` };
  }
}

/**
 * `--workers 2`: started like the single-process autotier (which is stopped first, its figures done);
 * it counts as available only when worker processes appear under it. Then its frontier is searched.
 */
async function measureWorkers2(stack: Stack): Promise<Frontier | Unavailable> {
  if (flags['no-workers']) return { unavailable: 'skipped (--no-workers)' };
  if (!settings.workers2) return { unavailable: 'skipped in --quick' };
  await stack.autotier.service.close();
  log('throughput frontier: autotier --workers 2');
  let workers: AutotierProcess;
  try {
    workers = await startAutotierProcess({
      entry: stack.entry,
      tableFile: stack.tableFile,
      projectRoot,
      workers: 2,
    });
  } catch (error) {
    const reason = (error as Error).message.split('\n')[0] ?? '';
    return { unavailable: `not available: autotier --workers 2 did not start (${reason})` };
  }
  try {
    if (workers.workerCount < 2)
      return {
        unavailable: `not available: autotier --workers 2 ran with ${workers.workerCount} worker process(es) (multi-worker mode not implemented yet?)`,
      };
    const router = requireTarget(
      toTargets({ ...stack.bases, autotier: workers.baseUrl }, 'zero'),
      'autotier',
    );
    await verifyTargets([router], { deployment: 'zero' });
    return await searchFrontier(stack, settings, router);
  } finally {
    await workers.service.close();
  }
}

async function runProfile(
  stack: Stack,
  data: BenchData,
  tempDir: string,
): Promise<NonNullable<BenchData['profile']>> {
  log('CPU profile of autotier under load');
  const frontier20 = data.frontier.autotier.ratesByBound['20ms'] ?? 0;
  const rate = Math.min(2000, Math.max(100, Math.round(frontier20 * 0.6)));
  try {
    const { folder, ...summary } = await profileAutotier({
      entry: stack.entry,
      tableFile: stack.tableFile,
      projectRoot,
      runner: stack.runner,
      targetsFor: (autotierBaseUrl) => {
        const bases = {
          ...stack.bases,
          autotier: autotierBaseUrl,
          portkey: undefined,
          nginx: undefined,
          nodeFloor: undefined,
        };
        const zero = toTargets(bases, 'zero');
        return {
          auto: requireTarget(zero, 'autotier-auto'),
          simple: requireTarget(zero, 'autotier'),
          stream: requireTarget(toTargets(bases, 'paced'), 'autotier'),
        };
      },
      rate,
      durationSeconds: settings.profile.durationSeconds,
      streams: settings.profile.streams,
      tempDir,
    });
    keepProfiles(folder);
    data.meta.notes.push(
      `profile: ${rate} req/s of auto, then of tier:SIMPLE, ${settings.profile.durationSeconds} s each, then ${settings.profile.streams} paced streams at once, under --cpu-prof`,
    );
    return summary;
  } catch (error) {
    return { unavailable: `profile failed: ${(error as Error).message}` };
  }
}

/** Copies the raw profiles next to the results (*.cpuprofile is git-ignored), for Chrome DevTools. */
function keepProfiles(folder: string): void {
  const target = dirname(flags.out);
  mkdirSync(target, { recursive: true });
  readdirSync(folder)
    .filter((name) => name.endsWith('.cpuprofile'))
    .forEach((name, index) =>
      copyFileSync(join(folder, name), join(target, `autotier-${index + 1}.cpuprofile`)),
    );
}

/** Full runs profile unless --no-profile; --quick runs only with --profile. */
function wantsProfile(): boolean {
  if (flags['no-profile']) return false;
  return flags.profile || settings.profileByDefault;
}

function finishMeta(data: BenchData): void {
  const { meta } = data;
  meta.durationSeconds = Math.round((performance.now() - benchStarted) / 1000);
  meta.loadAverage.end = round1(loadavg()[0] ?? 0);
  const busiest = Math.max(meta.loadAverage.start, meta.loadAverage.end);
  if (busiest > meta.cpus)
    meta.notes.push(
      `the machine was busy (1-minute load average up to ${busiest} on ${meta.cpus} CPUs): other processes competed with the bench, so tails and frontiers are pessimistic and noisy; compare the ratios, and re-run on a quiet machine for absolute figures`,
    );
}

function writeReport(data: BenchData): void {
  const report = toReport(data);
  process.stdout.write(`${formatReport(data, report)}\n`);
  mkdirSync(dirname(flags.out), { recursive: true });
  const json = {
    meta: data.meta,
    figures: report.figures,
    targets: report.targets,
    profile: data.profile,
    details: data,
  };
  writeFileSync(flags.out, `${JSON.stringify(json, null, 2)}\n`);
  log(`wrote ${flags.out}`);
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

/** `--memory-only`: the production start section alone, printed as JSON. */
async function mainMemoryOnly(): Promise<void> {
  log('memory of a production start (node dist/main.js, default table) and of Portkey, idle after 10 s');
  const result = await measureProductionStartSection(!flags['no-portkey']);
  process.stdout.write(`${JSON.stringify({ node: process.version, productionStart: result }, null, 2)}\n`);
}

(flags['memory-only'] ? mainMemoryOnly() : main())
  .catch((error: unknown) => {
    process.stderr.write(
      `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  })
  .finally(() => cleanUp());
