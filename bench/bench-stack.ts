import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAutotierProcess, type AutotierProcess } from './autotier-process.js';
import { toRoutingTable } from './bench-fleet.js';
import type { Unavailable } from './bench-data.js';
import type { CodeEntries } from './code-entries.js';
import { startLoadRunner, type LoadRunner, type RateResult } from './load.js';
import { startNginx, startNodeFloor, type ReferenceProxy } from './reference-proxies.js';
import { startPortkey, type PortkeyGateway } from './portkey.js';
import { pick, type NamedTarget, type RouteBases, type RouteName } from './routes.js';
import { startSimulator, type Simulator } from './simulator.js';

/** The processes of one bench run and what the measurements share. */
export interface Stack {
  simulator: Simulator;
  portkey: PortkeyGateway | undefined;
  /** The reference proxies, or why they are not there. */
  nginx: ReferenceProxy | Unavailable;
  nodeFloor: ReferenceProxy | Unavailable;
  /** The single-process autotier measured for latency, throughput, streams and memory. */
  autotier: AutotierProcess;
  tableFile: string;
  /** Node arguments that start autotier (for the --workers 2 and profiled processes). */
  entry: string[];
  runner: LoadRunner;
  bases: RouteBases;
  /** Direct runs by rate, shared by every frontier search of the run. */
  baselines: Map<number, RateResult>;
  projectRoot: string;
}

/**
 * Starts the simulator and the load worker, then autotier with the generated routing table and
 * Portkey (unless `withPortkey` is false), two at a time, then the reference proxies (unless
 * `withReferences` is false; one that cannot start, such as a missing nginx, is reported, not
 * fatal). Every start registers its stop in `cleanups`, so a failure half-way still stops what was
 * started.
 */
export async function startStack(options: {
  entries: CodeEntries;
  tempDir: string;
  modelFile: string;
  projectRoot: string;
  withPortkey: boolean;
  /** Start the reference proxies (nginx, the Node floor). */
  withReferences: boolean;
  cleanups: (() => unknown)[];
}): Promise<Stack> {
  const { cleanups, projectRoot } = options;
  const [simulator, runner] = await startTogether(
    cleanups,
    {
      start: () => startSimulator({ entry: options.entries.simulator, tempDir: options.tempDir }),
      stop: (started) => started.service.close(),
    },
    { start: () => startLoadRunner(), stop: (started) => started.close() },
  );
  const tableFile = join(options.tempDir, 'routing-table.json');
  const table = toRoutingTable({ baseUrls: simulator.baseUrls, modelFile: options.modelFile });
  writeFileSync(tableFile, JSON.stringify(table, null, 2));
  const entry = options.entries.autotier;
  const [autotier, portkey] = await startTogether(
    cleanups,
    {
      start: () => startAutotierProcess({ entry, tableFile, projectRoot }),
      stop: (started) => started.service.close(),
    },
    {
      start: async () =>
        options.withPortkey ? startPortkey({ upstreamBaseUrl: simulator.baseUrls.zero }) : undefined,
      stop: (started) => started?.close(),
    },
  );
  const skipped = { unavailable: 'skipped (--no-references)' };
  const nginx = options.withReferences
    ? await startNginx({ tempDir: options.tempDir, upstreams: simulator.baseUrls })
    : skipped;
  const nodeFloor = options.withReferences
    ? await startNodeFloor({ upstreams: simulator.baseUrls })
    : skipped;
  for (const reference of [nginx, nodeFloor])
    if ('service' in reference) cleanups.push(() => reference.service.close());
  const bases = {
    simulator: simulator.baseUrls,
    autotier: autotier.baseUrl,
    portkey: portkey?.baseUrl,
    nginx: 'origin' in nginx ? nginx.origin : undefined,
    nodeFloor: 'origin' in nodeFloor ? nodeFloor.origin : undefined,
  };
  return {
    simulator,
    portkey,
    nginx,
    nodeFloor,
    autotier,
    tableFile,
    entry,
    runner,
    bases,
    baselines: new Map(),
    projectRoot,
  };
}

export function requireTarget(targets: readonly NamedTarget[], name: RouteName): NamedTarget {
  const target = pick(targets, name);
  if (target === undefined) throw new Error(`no ${name} target`);
  return target;
}

interface Startable<T> {
  start: () => Promise<T>;
  stop: (started: T) => unknown;
}

/** Starts two services concurrently; each one that started registers its stop, then the first failure is thrown. */
async function startTogether<A, B>(
  cleanups: (() => unknown)[],
  first: Startable<A>,
  second: Startable<B>,
): Promise<[A, B]> {
  const [one, two] = await Promise.allSettled([first.start(), second.start()]);
  if (one.status === 'fulfilled') cleanups.push(() => first.stop(one.value));
  if (two.status === 'fulfilled') cleanups.push(() => second.stop(two.value));
  if (one.status === 'rejected') throw one.reason;
  if (two.status === 'rejected') throw two.reason;
  return [one.value, two.value];
}
