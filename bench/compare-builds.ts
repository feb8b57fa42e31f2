// Paired A/B of two built checkouts: `npm run bench:compare -- --base <dir> --new <dir>` (flags in
// bench/build-comparison.ts). One simulator fleet, both builds' dist/main.js running at once with the
// same routing table; each round runs the direct route and then both builds at concurrency 1 for
// every model, the builds' order alternating between rounds. See bench/README.md.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { startAutotierProcess, type AutotierProcess } from './autotier-process.js';
import { BENCH_MODEL, BODIES, toRoutingTable } from './bench-fleet.js';
import {
  buildOrder,
  compareRuns,
  formatComparison,
  parseCompareArgs,
  type BuildName,
  type CompareOptions,
  type RunRecord,
} from './build-comparison.js';
import { prepareCodeEntries } from './code-entries.js';
import { startLoadRunner, type LoadRunner, type Target } from './load.js';
import { resolveModelFile } from './local-model-file.js';
import { measureRun } from './measure-overhead.js';
import { readTreeCpuMs } from './process-tree.js';
import { startSimulator } from './simulator.js';
import { verifyTargets } from './verify-routes.js';
import { startBenchRun } from './bench-run.js';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const { started, log, cleanups, cleanUp } = startBenchRun('compare');

interface Build {
  name: BuildName;
  dir: string;
  commit: string;
  /** Tracked files differ from the commit. */
  dirty: boolean;
}

async function main(): Promise<void> {
  const options = parseCompareArgs(process.argv.slice(2));
  const builds = [toBuild('base', options.base), toBuild('new', options.next)] as const;
  const startedAt = new Date().toISOString();
  const loadAtStart = round1(loadavg()[0] ?? 0);
  const tempDir = mkdtempSync(join(tmpdir(), 'autotier-compare-'));
  cleanups.push(() => rmSync(tempDir, { recursive: true, force: true }));

  log('preparing the simulator and the classifier model');
  const entries = await prepareCodeEntries({ projectRoot, preference: 'auto', buildAllowed: false });
  cleanups.push(() => entries.cleanup());
  const model = await resolveModelFile({ projectRoot, tempDir });
  const simulator = await startSimulator({ entry: entries.simulator, tempDir });
  cleanups.push(() => simulator.service.close());
  const runner = await startLoadRunner();
  cleanups.push(() => runner.close());
  const tableFile = join(tempDir, 'routing-table.json');
  const table = toRoutingTable({ baseUrls: simulator.baseUrls, modelFile: model.path });
  writeFileSync(tableFile, JSON.stringify(table, null, 2));

  log(`starting both builds: base ${builds[0].commit.slice(0, 7)}, new ${builds[1].commit.slice(0, 7)}`);
  const startBuild = async (build: Build): Promise<AutotierProcess> => {
    const entry = [join(build.dir, 'dist/main.js')];
    const autotier = await startAutotierProcess({ entry, tableFile, projectRoot: build.dir });
    cleanups.push(() => autotier.service.close());
    return autotier;
  };
  const [baseProcess, newProcess] = await Promise.all([startBuild(builds[0]), startBuild(builds[1])]);
  const running = { base: baseProcess, new: newProcess };
  const direct: Target = {
    url: `${simulator.baseUrls.zero}/chat/completions`,
    body: { ...BODIES.zero, model: BENCH_MODEL },
  };
  for (const name of ['base', 'new'] as const)
    await verifyTargets(
      options.models.map((model) => ({ name: 'autotier', ...toBuildTarget(running[name], model) })),
      { deployment: 'zero' },
    );

  const records: RunRecord[] = [];
  const loadByRound: number[] = [];
  for (let round = 0; round < options.rounds; round += 1) {
    loadByRound.push(round1(loadavg()[0] ?? 0));
    for (const model of options.models) {
      records.push(toRecord({ round, model, target: 'direct' }, await run(runner, direct, options)));
      await sleep(options.pauseMs);
      for (const name of buildOrder(round)) {
        const target = toBuildTarget(running[name], model);
        const pid = running[name].service.pid;
        const measured = await run(runner, target, options, () => readTreeCpuMs(pid));
        records.push(toRecord({ round, model, target: name }, measured));
        await sleep(options.pauseMs);
      }
    }
    log(`round ${round + 1}/${options.rounds} done (load ${loadByRound[round]})`);
  }

  const comparisons = compareRuns(records, options.models);
  const meta = {
    startedAt,
    durationSeconds: Math.round((performance.now() - started) / 1000),
    node: process.version,
    cpus: cpus().length,
    loadAverage: { start: loadAtStart, end: round1(loadavg()[0] ?? 0), byRound: loadByRound },
    base: builds[0],
    new: builds[1],
    simulator: entries.kind,
    modelFile: model.path,
    settings: { ...options, out: undefined },
  };
  process.stdout.write(
    `base ${builds[0].commit} (${builds[0].dir})\nnew  ${builds[1].commit} (${builds[1].dir})\n` +
      `${options.rounds} rounds x ${options.requests} requests at concurrency 1, medians over rounds; ` +
      `paired = median of each round's own change\n` +
      `load average ${meta.loadAverage.start} -> ${meta.loadAverage.end} on ${meta.cpus} CPUs\n\n` +
      `${formatComparison(comparisons)}\n`,
  );
  for (const comparison of comparisons) {
    const { failures } = comparison;
    if (failures.base + failures.new + failures.direct > 0)
      process.stdout.write(`${comparison.model}: failed requests ${JSON.stringify(failures)}\n`);
  }
  const out = options.out ?? defaultOut(builds[0], builds[1]);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify({ meta, comparisons, runs: records }, null, 2)}\n`);
  log(`wrote ${out}`);
}

function toBuild(name: BuildName, dir: string): Build {
  const absolute = resolve(dir);
  if (!existsSync(join(absolute, 'dist/main.js')))
    throw new Error(`${absolute}/dist/main.js is missing: run npm run build in ${absolute}`);
  const git = (...args: string[]): string =>
    execFileSync('git', ['-C', absolute, ...args], { encoding: 'utf8' }).trim();
  return {
    name,
    dir: absolute,
    commit: git('rev-parse', 'HEAD'),
    dirty: git('status', '--porcelain', '--untracked-files=no').length > 0,
  };
}

function toBuildTarget(autotier: AutotierProcess, model: string): Target {
  return { url: `${autotier.baseUrl}/chat/completions`, body: { ...BODIES.zero, model } };
}

function run(
  runner: LoadRunner,
  target: Target,
  options: CompareOptions,
  cpuMs?: () => number | undefined,
): ReturnType<typeof measureRun> {
  const { requests, warmup, maxDurationSeconds } = options;
  return measureRun({
    runner,
    target,
    requests,
    warmup,
    maxDurationSeconds,
    ...(cpuMs === undefined ? {} : { cpuMs }),
  });
}

function toRecord(
  where: Pick<RunRecord, 'round' | 'model' | 'target'>,
  measured: Awaited<ReturnType<typeof measureRun>>,
): RunRecord {
  const { result, cpuUsPerRequest } = measured;
  return {
    ...where,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    cpuUsPerRequest: cpuUsPerRequest === undefined ? undefined : Math.round(cpuUsPerRequest),
    ok: result.ok,
    failures: result.errors + result.non2xx,
  };
}

function defaultOut(base: Build, next: Build): string {
  const name = `compare-${base.commit.slice(0, 7)}-${next.commit.slice(0, 7)}.json`;
  return join(projectRoot, 'bench/results', name);
}

function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

main()
  .catch((error: unknown) => {
    process.stderr.write(
      `compare failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  })
  .finally(() => cleanUp());
