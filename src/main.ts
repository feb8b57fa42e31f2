/**
 * The composition root: settings from the environment and flags, the routing table and its keys, the
 * shared state (Redis or memory), the learned model and the classifier per table, the service
 * (build-service.ts wires the core and the HTTP edge from these parts), table reloads and signals.
 * `node dist/main.js` (or `tsx src/main.ts`) runs it; `--workers N` forks N processes first.
 */
import cluster from 'node:cluster';
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildService, type Service, type SharedStateInfo } from './build-service.js';
import { createTableClassifier } from './classify/create-table-classifier.js';
import { loadLocalModel, type LocalModel } from './classify/local-model.js';
import { parseEnv, type Env } from './config/env.js';
import { loadRoutingTableFile, toTableRelativePath, type LoadedTable } from './config/load-routing-table.js';
import { toListenHost } from './config/listen-host.js';
import { toKeyChanges } from './config/reload-policy.js';
import { createTableReloader, type TableReloader } from './config/watch-routing-table.js';
import type { Logger } from './shared/logger.js';
import { createRedactingLogger } from './shared/redacting-logger.js';
import { createMetrics, type Metrics } from './observe/metrics.js';
import { createWinstonLogger } from './observe/winston-logger.js';
import { CLASSIFIER_PROMPT_PATH, DEFAULT_MODEL_PATH } from './project-paths.js';
import { systemClock } from './shared/clock.js';
import { startCluster } from './start-cluster.js';
import { startTracing } from './start-tracing.js';
import { createTrafficLearning } from './traffic-learning.js';
import { createMemoryStateStore } from './state/create-memory-state-store.js';
import { createResilientStore } from './state/create-resilient-store.js';
import type { StateStore } from './state/state-store.js';
import { releaseIdleMemory, releaseStartupMemory } from './runtime/collect-garbage.js';
import { startQuietSettler } from './runtime/settle-when-quiet.js';

export interface StartOptions {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  logger?: Logger;
}

export interface RunningAutotier {
  service: Service;
  url: string;
  env: Env;
  /** Stops reloads and drains the service (see Service.drain), then flushes the traces. @default graceMs 0 */
  close(graceMs?: number): Promise<void>;
  /** Exports every span ended so far (nothing to do when tracing is off). */
  flushTraces(): Promise<void>;
}

/** Environment and command-line flags, flags winning. */
export function toSettings(options: Pick<StartOptions, 'argv' | 'env'>): Env {
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
  return parseEnv({
    ...options.env,
    ...(values.table === undefined ? {} : { AUTOTIER_ROUTING_TABLE: values.table }),
    ...(values.port === undefined ? {} : { AUTOTIER_PORT: values.port }),
    ...(values.workers === undefined ? {} : { AUTOTIER_WORKERS: values.workers }),
    ...(values.host === undefined ? {} : { AUTOTIER_HOST: values.host }),
    ...(values.open === true ? { AUTOTIER_OPEN: '1' } : {}),
  });
}

/** The state store: Redis behind the resilient wrapper when AUTOTIER_REDIS_URL is set, else memory. */
async function createSharedState(input: {
  env: Env;
  table: LoadedTable;
  logger: Logger;
}): Promise<{ store?: StateStore; sharedState?: SharedStateInfo; metrics: Metrics }> {
  const metrics = createMetrics();
  const url = input.env.AUTOTIER_REDIS_URL;
  if (url === undefined) return { metrics };
  // ioredis loads only when Redis is configured
  const { createRedisStateStore } = await import('./state/redis-state-store.js');
  const redis = createRedisStateStore({
    url,
    clock: systemClock,
    commandTimeoutMs: input.env.AUTOTIER_REDIS_TIMEOUT_MS,
    onEvict: (count) => metrics.cacheEvicted('redis_sessions', count),
  });
  if (!(await redis.ready(2000)))
    input.logger.error('Redis is not answering yet; serving on local state until it does', {
      url: redactUrl(url),
    });
  const store = createResilientStore({
    primary: redis,
    local: createMemoryStateStore({
      clock: systemClock,
      onEvict: (count) => metrics.cacheEvicted('sessions', count),
    }),
    logger: input.logger,
    rateLimitsWhenDown: input.table.table.state.rate_limits_when_down,
    onError: (operation) => metrics.stateError(operation),
    connected: () => redis.connected(),
  });
  return {
    store,
    sharedState: { kind: 'redis', degraded: () => store.degraded(), errors: () => store.errorCount() },
    metrics,
  };
}

/** A Redis URL without its password, for logs. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable url)';
  }
}

function toModelPath(loaded: LoadedTable): string {
  const file = loaded.table.classifier.model_file;
  if (file === undefined) return DEFAULT_MODEL_PATH;
  return toTableRelativePath(loaded.source, file);
}

/** Re-reads the table and its keys file on change and on SIGHUP (see createTableReloader). */
function watchTable(options: {
  tablePath: string;
  service: Service;
  logger: Logger;
  keylessAllowed: boolean;
}): TableReloader {
  const { tablePath, service, logger } = options;
  return createTableReloader({
    path: tablePath,
    keylessAllowed: options.keylessAllowed,
    clock: systemClock,
    current: () => service.currentTable(),
    onLoad: (loaded) => {
      const keys = toKeyChanges(service.currentTable().table, loaded.table);
      service.setTable(loaded);
      logger.info('routing table reloaded', {
        table: tablePath,
        version: loaded.version,
        keys_added: keys.added,
        keys_removed: keys.removed,
        keys_changed: keys.changed,
      });
      for (const warning of loaded.warnings)
        logger.warn('routing table warning', { warning, table: tablePath });
    },
    onReject: (rejection) => {
      service.rejectTable(rejection);
      logger.error('routing table rejected; the previous table keeps serving', {
        table: tablePath,
        error: rejection.message,
        paths: rejection.problems.map((problem) => problem.path),
      });
    },
  });
}

/** Loads config, builds the service, listens, and wires SIGHUP and file-change reloads. */
export async function startAutotier(options: StartOptions): Promise<RunningAutotier> {
  const env = toSettings(options);
  const logger = createRedactingLogger(
    options.logger ?? createWinstonLogger({ level: env.AUTOTIER_LOG_LEVEL }),
  );
  const tablePath = resolve(env.AUTOTIER_ROUTING_TABLE);
  const table = await loadRoutingTableFile(tablePath, systemClock.now());
  for (const warning of table.warnings) logger.warn('routing table warning', { warning, table: tablePath });
  const listening = toListenHost({
    host: env.AUTOTIER_HOST,
    open: env.AUTOTIER_OPEN,
    keyless: table.table.api_keys.length === 0,
  });
  if (listening.warning !== undefined) logger.warn(listening.warning, { host: listening.host });
  const promptTemplate = await readFile(CLASSIFIER_PROMPT_PATH, 'utf8');
  const models = new Map<string, LocalModel>();
  /** Keyed by path and modification time, so a reload after `npm run train -- --from-traffic` reads the new file. */
  const modelFor = (loaded: LoadedTable): LocalModel => {
    const path = toModelPath(loaded);
    const key = `${path}@${statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0}`;
    let model = models.get(key);
    if (model === undefined) {
      model = loadLocalModel(path);
      models.set(key, model);
    }
    return model;
  };
  const learning = createTrafficLearning({ clock: systemClock, logger, redisUrl: env.AUTOTIER_REDIS_URL });
  const readSecret = (name: string): string | undefined => options.env[name];
  const shared = await createSharedState({ env, table, logger });
  const tracing = await startTracing({ env, clock: systemClock, logger });
  const service = buildService({
    table,
    logger,
    tracer: tracing?.tracer,
    readSecret,
    countThreads: env.AUTOTIER_COUNT_THREADS,
    ...shared,
    createClassifier: (loaded) => {
      const model = modelFor(loaded);
      const onLlmDecision = learning.hookFor(loaded, model);
      return createTableClassifier({
        loaded,
        model,
        promptTemplate,
        clock: systemClock,
        logger,
        readSecret,
        onCacheEvict: (count) => shared.metrics.cacheEvicted('classification', count),
        ...(onLlmDecision === undefined ? {} : { onLlmDecision }),
      });
    },
  });
  const reloader = watchTable({ tablePath, service, logger, keylessAllowed: listening.keylessAllowed });
  const onHangup = (): void => void reloader.reload();
  process.on('SIGHUP', onHangup);
  // what loading the code grew goes back to the system before the first request can arrive
  await service.ready();
  releaseStartupMemory();
  const { url } = await service.listen(env.AUTOTIER_PORT, listening.host);
  const stopSettler =
    env.AUTOTIER_RELEASE_MEMORY_AFTER_MS === 0
      ? () => undefined
      : startQuietSettler({
          clock: systemClock,
          quietMs: env.AUTOTIER_RELEASE_MEMORY_AFTER_MS,
          intervalMs: Math.min(1000, env.AUTOTIER_RELEASE_MEMORY_AFTER_MS),
          readActivity: () => service.activity(),
          settle: () => {
            const ms = releaseIdleMemory();
            logger.debug('memory handed back after a busy spell', { gc_ms: Math.round(ms) });
          },
        });
  logger.info('autotier listening', {
    url,
    table: tablePath,
    version: table.version,
    classifier: table.table.classifier.mode,
  });
  return {
    service,
    url,
    env,
    async close(graceMs = 0) {
      process.off('SIGHUP', onHangup);
      stopSettler();
      reloader.close();
      await service.drain(graceMs);
      await learning.close();
      // after the drain, so the spans of the last requests are exported too
      await tracing?.shutdown();
    },
    flushTraces: () => tracing?.flush() ?? Promise.resolve(),
  };
}

/** The process: forks workers when asked (the primary only forks), else starts and stops on signals. */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const env = toSettings({ argv, env: process.env });
  if (env.AUTOTIER_WORKERS > 1 && cluster.isPrimary) {
    // the workers would each refuse the host and be forked again, forever: refuse it once, here
    const table = await loadRoutingTableFile(resolve(env.AUTOTIER_ROUTING_TABLE), systemClock.now());
    toListenHost({
      host: env.AUTOTIER_HOST,
      open: env.AUTOTIER_OPEN,
      keyless: table.table.api_keys.length === 0,
    });
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
