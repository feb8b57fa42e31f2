import cluster, { type Worker } from 'node:cluster';
import type { Logger } from './shared/logger.js';

export interface ClusterOptions {
  workers: number;
  logger: Logger;
  /** Delay before a crashed worker is replaced, ms. @default 1000 */
  restartDelayMs?: number;
}

/**
 * The primary of `--workers N`: forks N processes that share the listening port (node:cluster),
 * replaces a worker that dies unexpectedly, forwards SIGHUP (table reload), and stops them on SIGTERM.
 */
export function startCluster(options: ClusterOptions): void {
  let stopping = false;
  const fork = (): Worker => cluster.fork();
  for (let index = 0; index < options.workers; index += 1) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    options.logger.error('worker exited; starting a new one', { pid: worker.process.pid, code, signal });
    setTimeout(fork, options.restartDelayMs ?? 1000).unref();
  });
  const eachWorker = (action: (worker: Worker) => void): void => {
    for (const worker of Object.values(cluster.workers ?? {})) if (worker !== undefined) action(worker);
  };
  process.on('SIGHUP', () => eachWorker((worker) => worker.process.kill('SIGHUP')));
  const stop = (): void => {
    stopping = true;
    eachWorker((worker) => worker.process.kill('SIGTERM'));
    const deadline = setTimeout(() => process.exit(0), 10_000);
    deadline.unref();
    cluster.on('exit', () => {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
    });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
