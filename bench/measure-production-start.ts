import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startChildService } from './child-service.js';
import { findFreePort } from './free-port.js';
import { startPortkey } from './portkey.js';
import {
  listDescendants,
  readPeakRssMiB,
  readRssMiB,
  readTreePeakRssMiB,
  readTreeRssMiB,
} from './process-tree.js';

/** Memory of one gateway started as production starts it, before any request, in MiB. */
export interface StartMemory {
  /** VmRSS (summed over worker processes) once it has been idle for `idleAfterMs` after answering. */
  idleMiB: number;
  /** VmHWM (summed over worker processes): the largest RSS from its start to the idle reading. */
  peakMiB: number;
}

/** `--workers 2`: the primary (it only forks and watches) and each worker, idle and peak. */
export interface WorkersStartMemory {
  primary: StartMemory;
  workers: StartMemory[];
}

export interface ProductionStartMemory {
  /** `node dist/main.js` on routing-tables/default.yaml, no request sent. */
  autotier: StartMemory;
  /** The same with `--workers 2`; undefined when its workers did not come up. */
  workers2?: WorkersStartMemory | undefined;
  /** Portkey's gateway started the same way, in the same run; undefined when it is not installed. */
  portkey?: StartMemory | undefined;
  idleAfterMs: number;
}

/** The pause after /health answers before the idle reading, ms: the target's "idle after 10 s". */
export const IDLE_AFTER_MS = 10_000;

async function readAfterIdle(pid: number, idleAfterMs: number): Promise<StartMemory> {
  await sleep(idleAfterMs);
  return { idleMiB: readTreeRssMiB(pid) ?? 0, peakMiB: readTreePeakRssMiB(pid) ?? 0 };
}

/**
 * Starts the compiled server as production does (`node <dist>/main.js`, the default table, no flags,
 * nothing but /health asked), reads its memory after `idleAfterMs`, stops it; then the same for
 * Portkey. One at a time, so neither start competes with the other for the cores.
 */
export async function measureProductionStart(options: {
  projectRoot: string;
  /** The folder holding the compiled main.js (dist/ after `npm run build`). */
  distDir: string;
  withPortkey: boolean;
  idleAfterMs?: number;
}): Promise<ProductionStartMemory> {
  const idleAfterMs = options.idleAfterMs ?? IDLE_AFTER_MS;
  const autotier = await measureAutotierStart(options, idleAfterMs);
  const workers2 = await measureWorkersStart(options, idleAfterMs);
  if (!options.withPortkey) return { autotier, workers2, idleAfterMs };
  // no request goes through it: any upstream will do
  const gateway = await startPortkey({ upstreamBaseUrl: 'http://127.0.0.1:9/v1' }).catch(() => undefined);
  if (gateway === undefined) return { autotier, workers2, idleAfterMs };
  try {
    return { autotier, workers2, portkey: await readAfterIdle(gateway.pid, idleAfterMs), idleAfterMs };
  } finally {
    await gateway.close();
  }
}

async function startProduction(options: { projectRoot: string; distDir: string }, extraArgs: string[]) {
  const port = await findFreePort();
  return startChildService({
    name: `autotier (production start${extraArgs.length > 0 ? ` ${extraArgs.join(' ')}` : ''})`,
    args: [join(options.distDir, 'main.js'), ...extraArgs],
    cwd: options.projectRoot,
    env: {
      ...process.env,
      AUTOTIER_PORT: String(port),
      AUTOTIER_HOST: '127.0.0.1',
      AUTOTIER_ROUTING_TABLE: join(options.projectRoot, 'routing-tables/default.yaml'),
    },
    healthUrls: [`http://127.0.0.1:${port}/health`],
  });
}

async function measureAutotierStart(
  options: { projectRoot: string; distDir: string },
  idleAfterMs: number,
): Promise<StartMemory> {
  const service = await startProduction(options, []);
  try {
    return await readAfterIdle(service.pid, idleAfterMs);
  } finally {
    await service.close();
  }
}

/** How long the workers of `--workers 2` get to appear after the first one answers, ms. */
const WORKERS_UP_MS = 20_000;

async function measureWorkersStart(
  options: { projectRoot: string; distDir: string },
  idleAfterMs: number,
): Promise<WorkersStartMemory | undefined> {
  const service = await startProduction(options, ['--workers', '2']);
  try {
    const deadline = performance.now() + WORKERS_UP_MS;
    while (listDescendants(service.pid).length < 2 && performance.now() < deadline) await sleep(100);
    await sleep(idleAfterMs);
    const children = listDescendants(service.pid);
    if (children.length < 2) return undefined;
    const read = (pid: number): StartMemory => ({
      idleMiB: readRssMiB(pid) ?? 0,
      peakMiB: readPeakRssMiB(pid) ?? 0,
    });
    return { primary: read(service.pid), workers: children.map(read) };
  } finally {
    await service.close();
  }
}
