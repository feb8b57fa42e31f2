import cluster from 'node:cluster';
import { createWinstonLogger } from './observe/winston-logger.js';
import { startCluster } from './start-cluster.js';
import { startAutotier, toSettings } from './start-autotier.js';

/** Composition root: config -> dependencies -> app -> listen; `--workers N` forks N processes first. */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const env = toSettings({ argv, env: process.env });
  if (env.AUTOTIER_WORKERS > 1 && cluster.isPrimary) {
    const logger = createWinstonLogger({ level: env.AUTOTIER_LOG_LEVEL });
    if (env.AUTOTIER_REDIS_URL === undefined)
      logger.warn(
        'several workers and no AUTOTIER_REDIS_URL: cooldowns, limits and sessions are per process',
      );
    startCluster({ workers: env.AUTOTIER_WORKERS, logger });
    return;
  }
  const running = await startAutotier({ argv, env: process.env });
  const stop = (): void => {
    void running.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `autotier failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
