import { setTimeout as sleep } from 'node:timers/promises';
import { startChildService, type ChildService } from './child-service.js';
import { findFreePort } from './free-port.js';
import { listDescendants } from './process-tree.js';

export interface AutotierProcess {
  service: ChildService;
  /** OpenAI-style base URL, e.g. `http://127.0.0.1:4000/v1`. */
  baseUrl: string;
  /** Worker processes found under the autotier process (0 in single-process mode). */
  workerCount: number;
}

export interface AutotierProcessOptions {
  /** Node arguments that start src/main.ts or its compiled main.js. */
  entry: string[];
  tableFile: string;
  /** Passed as `--workers N` when above 1. @default 1 */
  workers?: number;
  /** Writes a V8 CPU profile per process into this folder on exit (`--cpu-prof`). */
  cpuProfileDir?: string;
  projectRoot: string;
}

/**
 * Runs autotier on 127.0.0.1 with the given routing table and AUTOTIER_LOG_LEVEL=warn (per-request
 * info logs would be part of what is measured otherwise). With `workers` above 1 it waits up to 5 s
 * for that many worker processes to appear under the autotier process.
 */
export async function startAutotierProcess(options: AutotierProcessOptions): Promise<AutotierProcess> {
  const port = await findFreePort();
  const workers = options.workers ?? 1;
  const profile =
    options.cpuProfileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`];
  const args = [
    ...profile,
    ...options.entry,
    '--table',
    options.tableFile,
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    ...(workers > 1 ? ['--workers', String(workers)] : []),
  ];
  const service = await startChildService({
    name: workers > 1 ? `autotier --workers ${workers}` : 'autotier',
    args,
    cwd: options.projectRoot,
    env: { ...process.env, AUTOTIER_LOG_LEVEL: 'warn' },
    healthUrls: [`http://127.0.0.1:${port}/health`],
  });
  let workerCount = listDescendants(service.pid).length;
  for (let waited = 0; workers > 1 && workerCount < workers && waited < 5000; waited += 250) {
    await sleep(250);
    workerCount = listDescendants(service.pid).length;
  }
  return { service, baseUrl: `http://127.0.0.1:${port}/v1`, workerCount };
}
