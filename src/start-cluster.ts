import cluster, { type Worker } from 'node:cluster';
import type { Logger } from './shared/logger.js';

export interface ClusterOptions {
  workers: number;
  logger: Logger;
  /** Delay before a crashed worker is replaced, ms. @default 1000 */
  restartDelayMs?: number;
  /** Each worker's drain grace period (AUTOTIER_SHUTDOWN_GRACE_MS), ms; the primary waits this plus a margin. */
  shutdownGraceMs: number;
}

/** Slack past the workers' grace period, above their own (main.ts EXIT_MARGIN_MS), ms. */
const STOP_MARGIN_MS = 20_000;

/**
 * The primary of `--workers N`: forks N processes that share the listening port (node:cluster),
 * replaces a worker that dies unexpectedly, forwards SIGHUP (table reload), and stops them on SIGTERM
 * or SIGINT: each worker drains (see Service.drain) and exits; the primary exits 0 once they all have,
 * or 1 when some are still running `STOP_MARGIN_MS` after the grace period (they are killed).
 */
export function startCluster(options: ClusterOptions): void {
  let stopping = false;
  const fork = (): Worker => cluster.fork();
  for (let index = 0; index < options.workers; index += 1) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    options.logger.error('worker exited; starting a new one', { pid: worker.process.pid, code, signal });
    setTimeout(() => {
      if (!stopping) fork();
    }, options.restartDelayMs ?? 1000).unref();
  });
  const eachWorker = (action: (worker: Worker) => void): void => {
    for (const worker of Object.values(cluster.workers ?? {})) if (worker !== undefined) action(worker);
  };
  process.on('SIGHUP', () => eachWorker((worker) => worker.process.kill('SIGHUP')));
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    const exitWhenNoWorkers = (): void => {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
    };
    cluster.on('exit', exitWhenNoWorkers);
    eachWorker((worker) => worker.process.kill('SIGTERM'));
    exitWhenNoWorkers();
    setTimeout(() => {
      options.logger.error('workers still draining after the grace period; killing them', {
        grace_ms: options.shutdownGraceMs,
      });
      eachWorker((worker) => worker.process.kill('SIGKILL'));
      process.exit(1);
    }, options.shutdownGraceMs + STOP_MARGIN_MS).unref();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
