/**
 * The process: settings from the environment and flags, the listening host the table allows, the
 * gateway of createAutotier (create-autotier.ts builds every part) on its own server, table reloads
 * on SIGHUP, memory handed back before listening and after busy spells, and a drain on SIGTERM.
 * `node dist/main.js` (or `tsx src/main.ts`) runs it; `--workers N` forks N processes first.
 */
import cluster from 'node:cluster';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parseEnv, type Env } from './config/env.js';
import { loadRoutingTableFile, type LoadedTable } from './config/load-routing-table.js';
import { toListenHost, type ListenHost } from './config/listen-host.js';
import type { Autotier } from './create-autotier.js';
import type { Logger } from './shared/logger.js';
import { createRedactingLogger } from './shared/redacting-logger.js';
import { createWinstonLogger } from './observe/winston-logger.js';
import { systemClock } from './shared/clock.js';
import { startCluster } from './start-cluster.js';
import { releaseIdleMemory, releaseStartupMemory } from './runtime/collect-garbage.js';
import { startQuietSettler } from './runtime/settle-when-quiet.js';

export interface StartOptions {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  logger?: Logger;
}

export interface RunningAutotier {
  autotier: Autotier;
  url: string;
  env: Env;
  /** Stops reloads and closes the gateway (see Autotier.close): drains, then flushes the traces. @default graceMs 0 */
  close(graceMs?: number): Promise<void>;
  /** Exports every span ended so far (nothing to do when tracing is off). */
  flushTraces(): Promise<void>;
}

/** The environment with the command-line flags written over it, as the variables they stand for. */
function toSettingsSource(
  options: Pick<StartOptions, 'argv' | 'env'>,
): Readonly<Record<string, string | undefined>> {
  const { values } = parseArgs({
    args: [...options.argv],
    options: {
      table: { type: 'string' },
      port: { type: 'string' },
      workers: { type: 'string' },
      host: { type: 'string' },
      /** Serve a table without API keys beyond loopback. */
      open: { type: 'boolean' },
    },
    strict: true,
  });
  return {
    ...options.env,
    ...(values.table === undefined ? {} : { AUTOTIER_ROUTING_TABLE: values.table }),
    ...(values.port === undefined ? {} : { AUTOTIER_PORT: values.port }),
    ...(values.workers === undefined ? {} : { AUTOTIER_WORKERS: values.workers }),
    ...(values.host === undefined ? {} : { AUTOTIER_HOST: values.host }),
    ...(values.open === true ? { AUTOTIER_OPEN: '1' } : {}),
  };
}

/** Environment and command-line flags, flags winning. */
export function toSettings(options: Pick<StartOptions, 'argv' | 'env'>): Env {
  return parseEnv(toSettingsSource(options));
}

/**
 * The table's host check: where to listen, and whether a keyless table may serve there
 * (listen-host.ts); throws for a keyless table on a host it may not serve. The table read here is
 * the one that serves (createAutotierFrom), so the check and the gateway see the same keys.
 */
async function toListening(env: Env): Promise<{ listening: ListenHost; table: LoadedTable }> {
  const table = await loadRoutingTableFile(resolve(env.AUTOTIER_ROUTING_TABLE), systemClock.now());
  const listening = toListenHost({
    host: env.AUTOTIER_HOST,
    open: env.AUTOTIER_OPEN,
    keyless: table.table.api_keys.length === 0,
  });
  return { listening, table };
}

/**
 * SIGHUP re-reads the table; one that arrives while the gateway is still starting is kept and runs
 * once it has started (until then the signal would otherwise end the process: its default action).
 */
function reloadOnHangup(): { attach(autotier: Autotier): void; detach(): void } {
  let attached: Autotier | undefined;
  let pending = false;
  const onHangup = (): void => {
    if (attached === undefined) pending = true;
    else void attached.reload();
  };
  process.on('SIGHUP', onHangup);
  return {
    attach(autotier) {
      attached = autotier;
      if (pending) void autotier.reload();
    },
    detach: () => void process.off('SIGHUP', onHangup),
  };
}

/** Runs one full collection after each busy spell (AUTOTIER_RELEASE_MEMORY_AFTER_MS; 0: never). */
function settleWhenQuiet(input: { env: Env; autotier: Autotier; logger: Logger }): () => void {
  const quietMs = input.env.AUTOTIER_RELEASE_MEMORY_AFTER_MS;
  if (quietMs === 0) return () => undefined;
  return startQuietSettler({
    clock: systemClock,
    quietMs,
    intervalMs: Math.min(1000, quietMs),
    readActivity: () => input.autotier.activity(),
    settle: () => {
      const ms = releaseIdleMemory();
      input.logger.debug('memory handed back after a busy spell', { gc_ms: Math.round(ms) });
    },
  });
}

/**
 * The gateway of createAutotier on its own server: checks where a table may listen, builds the
 * gateway (the table file reloads on change and on SIGHUP), hands start-up memory back, listens, and
 * hands memory back again after each busy spell.
 */
export async function startAutotier(options: StartOptions): Promise<RunningAutotier> {
  const source = toSettingsSource(options);
  const env = parseEnv(source);
  const baseLogger = options.logger ?? createWinstonLogger({ level: env.AUTOTIER_LOG_LEVEL });
  const logger = createRedactingLogger(baseLogger);
  const tablePath = resolve(env.AUTOTIER_ROUTING_TABLE);
  const { listening, table } = await toListening(env);
  if (listening.warning !== undefined) logger.warn(listening.warning, { host: listening.host });
  const hangup = reloadOnHangup();
  let autotier: Autotier;
  try {
    // loaded here, not at the top: the primary of --workers only forks and never loads the gateway
    const { createAutotierFrom } = await import('./create-autotier.js');
    autotier = await createAutotierFrom(
      { table: tablePath, env: source, logger: baseLogger, allowKeyless: listening.keylessAllowed },
      table,
    );
  } catch (error) {
    hangup.detach();
    throw error;
  }
  hangup.attach(autotier);
  // what loading the code grew goes back to the system before the first request can arrive
  releaseStartupMemory();
  let url: string;
  try {
    ({ url } = await autotier.listen(env.AUTOTIER_PORT, listening.host));
  } catch (error) {
    hangup.detach();
    await autotier.close();
    throw error;
  }
  const stopSettler = settleWhenQuiet({ env, autotier, logger });
  logger.info('autotier listening', {
    url,
    table: tablePath,
    version: table.version,
    classifier: table.table.classifier.mode,
  });
  return {
    autotier,
    url,
    env,
    async close(graceMs = 0) {
      hangup.detach();
      stopSettler();
      await autotier.close(graceMs);
    },
    flushTraces: () => autotier.flushTraces(),
  };
}

/** The process: forks workers when asked (the primary only forks), else starts and stops on signals. */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const env = toSettings({ argv, env: process.env });
  if (env.AUTOTIER_WORKERS > 1 && cluster.isPrimary) {
    // the workers would each refuse the host and be forked again, forever: refuse it once, here
    await toListening(env);
    const logger = createWinstonLogger({ level: env.AUTOTIER_LOG_LEVEL });
    if (env.AUTOTIER_REDIS_URL === undefined)
      logger.warn(
        'several workers and no AUTOTIER_REDIS_URL: cooldowns, limits and sessions are per process',
      );
    startCluster({ workers: env.AUTOTIER_WORKERS, logger, shutdownGraceMs: env.AUTOTIER_SHUTDOWN_GRACE_MS });
    // the primary only forks and watches: what loading the table grew goes back to the system
    releaseStartupMemory();
    return;
  }
  const logger = createWinstonLogger({ level: env.AUTOTIER_LOG_LEVEL });
  const running = await startAutotier({ argv, env: process.env, logger });
  stopOnSignals({ running, logger, graceMs: env.AUTOTIER_SHUTDOWN_GRACE_MS });
}

/** Slack past the grace period for the stopped requests, the store and the pools to close, ms. */
const EXIT_MARGIN_MS = 15_000;

/**
 * SIGTERM or SIGINT drains (see Service.drain) and exits 0; the same signal a second time exits at
 * once (its default action), and a drain that has not ended `EXIT_MARGIN_MS` after the grace period
 * exits 1.
 */
function stopOnSignals(input: { running: RunningAutotier; logger: Logger; graceMs: number }): void {
  const { running, logger, graceMs } = input;
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info('draining', { signal, grace_ms: graceMs });
    setTimeout(() => {
      logger.error('the drain did not end in time; exiting', { grace_ms: graceMs });
      process.exit(1);
    }, graceMs + EXIT_MARGIN_MS).unref();
    running.close(graceMs).then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('the drain failed', { error: String(error) });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

// Run when this file is the process's entry; importing it (the demo, tests) runs nothing.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href)
  main().catch((error: unknown) => {
    process.stderr.write(
      `autotier failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  });
