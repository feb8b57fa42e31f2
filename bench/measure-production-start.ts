import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startChildService } from './child-service.js';
import { findFreePort } from './free-port.js';
import { startPortkey } from './portkey.js';
import { readTreePeakRssMiB, readTreeRssMiB } from './process-tree.js';

/** Memory of one gateway started as production starts it, before any request, in MiB. */
export interface StartMemory {
  /** VmRSS (summed over worker processes) once it has been idle for `idleAfterMs` after answering. */
  idleMiB: number;
  /** VmHWM (summed over worker processes): the largest RSS from its start to the idle reading. */
  peakMiB: number;
}

export interface ProductionStartMemory {
  /** `node dist/main.js` on routing-tables/default.yaml, no request sent. */
  autotier: StartMemory;
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
  const port = await findFreePort();
  const service = await startChildService({
    name: 'autotier (production start)',
    args: [join(options.distDir, 'main.js')],
    cwd: options.projectRoot,
    env: {
      ...process.env,
      AUTOTIER_PORT: String(port),
      AUTOTIER_HOST: '127.0.0.1',
      AUTOTIER_ROUTING_TABLE: join(options.projectRoot, 'routing-tables/default.yaml'),
    },
    healthUrls: [`http://127.0.0.1:${port}/health`],
  });
  let autotier: StartMemory;
  try {
    autotier = await readAfterIdle(service.pid, idleAfterMs);
  } finally {
    await service.close();
  }
  if (!options.withPortkey) return { autotier, idleAfterMs };
  // no request goes through it: any upstream will do
  const gateway = await startPortkey({ upstreamBaseUrl: 'http://127.0.0.1:9/v1' }).catch(() => undefined);
  if (gateway === undefined) return { autotier, idleAfterMs };
  try {
    return { autotier, portkey: await readAfterIdle(gateway.pid, idleAfterMs), idleAfterMs };
  } finally {
    await gateway.close();
  }
}
