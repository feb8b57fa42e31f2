import type { Server } from 'node:http';
import { resolve } from 'node:path';
import type { Router } from 'express';
import { buildService, type Service } from './build-service.js';
import { parseEnv } from './config/env.js';
import { loadRoutingTableFile, parseRoutingTable, type LoadedTable } from './config/load-routing-table.js';
import { toKeyChanges } from './config/reload-policy.js';
import type { RoutingTableInput } from './config/routing-table-schema.js';
import { createTableReloader, type TableReloader } from './config/watch-routing-table.js';
import { createTableClassifierFactory } from './create-table-classifier-factory.js';
import { createSharedState } from './create-shared-state.js';
import { createWinstonLogger } from './observe/winston-logger.js';
import { systemClock } from './shared/clock.js';
import { RouterError } from './shared/errors.js';
import type { Logger } from './shared/logger.js';
import { createRedactingLogger } from './shared/redacting-logger.js';
import { startTracing } from './start-tracing.js';
import { createTrafficLearning } from './traffic-learning.js';

export interface AutotierOptions {
  /**
   * The routing table: the path of a YAML (or JSON) file, read with its `api_keys_file` and reloaded
   * whenever either file changes and on `reload()`; or a table object of the same shape, validated
   * the same way and never reloaded (its relative paths are relative to the working directory, and
   * it takes `api_keys` inline only).
   */
  table: string | RoutingTableInput;
  /**
   * The settings (AUTOTIER_LOG_LEVEL, AUTOTIER_REDIS_URL, AUTOTIER_REDIS_TIMEOUT_MS,
   * AUTOTIER_COUNT_THREADS, OTEL_*) and the secrets the table names (`api_key_env`).
   * @default process.env
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where autotier logs; every line is masked of credentials. @default JSON lines on stdout (winston) */
  logger?: Logger;
  /**
   * Whether a table without API keys may serve, at start and after a reload; without keys every
   * request that reaches the router is served, so the operator's own middleware is the only gate.
   * @default true when the first table has no keys, false when it has some (a reload never turns a
   * gateway with keys into an open one)
   */
  allowKeyless?: boolean;
}

/** Requests the gateway has started so far, and those not yet answered. */
export interface AutotierActivity {
  started: number;
  inFlight: number;
}

/** A running gateway: `createAutotier` builds it, `close` ends it. */
export interface Autotier {
  /**
   * Every endpoint (`/v1/chat/completions`, `/v1/models`, `/health`, ...) as an express Router, paths
   * relative to where it is mounted: `app.use('/llm', gateway.router)`. It answers every request that
   * reaches it (an unknown path with the OpenAI-shaped 404) and reads bodies itself: mount it before
   * any body parser (a body read before it is refused with 400; docs/embedding.md).
   */
  readonly router: Router;
  /** Serves the endpoints on a node:http server of its own, which `close` closes (what `npm start` does). */
  listen(port: number, host?: string): Promise<{ server: Server; url: string }>;
  /** Re-reads the table file now (`npm start` does on SIGHUP); true when the file's table is serving. */
  reload(): Promise<boolean>;
  activity(): AutotierActivity;
  /** Exports every span ended so far (nothing to do when tracing is off). */
  flushTraces(): Promise<void>;
  /**
   * Drains, then closes everything autotier opened: new requests get 503 `shutting_down` with
   * `Connection: close` at once, requests in flight get up to `graceMs` to finish and are then
   * stopped; the servers of `listen`, the state store, the connection pools, the table watch and the
   * trace exporter close. Later calls return the first call's promise. @default graceMs 0
   */
  close(graceMs?: number): Promise<void>;
}

/** A table object as a loaded table: validated like a file; `api_keys_file` needs a file to be relative to. */
function toLoadedTable(input: RoutingTableInput): LoadedTable {
  const source = '(the table object given to createAutotier)';
  if ('api_keys_file' in input && input.api_keys_file !== undefined)
    throw new RouterError({
      code: 'CONFIG_INVALID',
      message: `invalid routing table ${source}:\n  api_keys_file: a table object takes api_keys inline; pass a file path to use api_keys_file`,
    });
  return parseRoutingTable({ text: JSON.stringify(input), source, now: systemClock.now() });
}

/** Re-reads the table and its keys file on change and on `reload()` (see createTableReloader). */
function watchTable(input: {
  path: string;
  service: Service;
  logger: Logger;
  keylessAllowed: boolean;
}): TableReloader {
  const { path, service, logger } = input;
  return createTableReloader({
    path,
    keylessAllowed: input.keylessAllowed,
    clock: systemClock,
    current: () => service.currentTable(),
    onLoad: (loaded) => {
      const keys = toKeyChanges(service.currentTable().table, loaded.table);
      service.setTable(loaded);
      logger.info('routing table reloaded', {
        table: path,
        version: loaded.version,
        keys_added: keys.added,
        keys_removed: keys.removed,
        keys_changed: keys.changed,
      });
      for (const warning of loaded.warnings) logger.warn('routing table warning', { warning, table: path });
    },
    onReject: (rejection) => {
      service.rejectTable(rejection);
      logger.error('routing table rejected; the previous table keeps serving', {
        table: path,
        error: rejection.message,
        paths: rejection.problems.map((problem) => problem.path),
      });
    },
  });
}

/**
 * The first table (`read`: the file's table as the caller already read it, so it is not read twice),
 * refused when it has no keys and keyless tables are not allowed.
 */
async function loadFirstTable(
  options: AutotierOptions,
  read: LoadedTable | undefined,
): Promise<{ table: LoadedTable; keylessAllowed: boolean }> {
  const table =
    typeof options.table === 'string'
      ? (read ?? (await loadRoutingTableFile(resolve(options.table), systemClock.now())))
      : toLoadedTable(options.table);
  const keyless = table.table.api_keys.length === 0;
  const keylessAllowed = options.allowKeyless ?? keyless;
  if (keyless && !keylessAllowed)
    throw new RouterError({
      code: 'CONFIG_INVALID',
      message: `invalid routing table ${table.source}:\n  api_keys: the table has no API keys and allowKeyless is false`,
    });
  return { table, keylessAllowed };
}

/**
 * The gateway, built once for every way it runs: `npm start` and `npm run demo` (main.ts, which
 * listens with `listen`) and an operator's express app (which mounts `router`). Reads the settings,
 * loads and validates the table, connects the state store (Redis when AUTOTIER_REDIS_URL is set) and
 * tracing (OTEL_*), wires the service, watches the table file, and resolves once the tokenizers are
 * loaded, so the first request is served at full speed.
 */
export function createAutotier(options: AutotierOptions): Promise<Autotier> {
  return createAutotierFrom(options, undefined);
}

/**
 * createAutotier with the table file already read (`npm start` reads it first to check where a table
 * may listen): the same table serves, and is watched from then on.
 */
export async function createAutotierFrom(
  options: AutotierOptions,
  read: LoadedTable | undefined,
): Promise<Autotier> {
  const source = options.env ?? process.env;
  const env = parseEnv(source);
  const logger = createRedactingLogger(
    options.logger ?? createWinstonLogger({ level: env.AUTOTIER_LOG_LEVEL }),
  );
  const { table, keylessAllowed } = await loadFirstTable(options, read);
  for (const warning of table.warnings)
    logger.warn('routing table warning', { warning, table: table.source });
  const learning = createTrafficLearning({ clock: systemClock, logger, redisUrl: env.AUTOTIER_REDIS_URL });
  const readSecret = (name: string): string | undefined => source[name];
  const shared = await createSharedState({ env, table, logger });
  const tracing = await startTracing({ env, clock: systemClock, logger });
  const service = buildService({
    table,
    logger,
    tracer: tracing?.tracer,
    readSecret,
    countThreads: env.AUTOTIER_COUNT_THREADS,
    ...shared,
    createClassifier: await createTableClassifierFactory({
      logger,
      readSecret,
      learning,
      onCacheEvict: (count) => shared.metrics.cacheEvicted('classification', count),
    }),
  });
  const reloader =
    typeof options.table === 'string'
      ? watchTable({ path: table.source, service, logger, keylessAllowed })
      : undefined;
  let closing: Promise<void> | undefined;
  const close = (graceMs = 0): Promise<void> => {
    closing ??= (async () => {
      reloader?.close();
      await service.drain(graceMs);
      await learning.close();
      // after the drain, so the spans of the last requests are exported too
      await tracing?.shutdown();
    })();
    return closing;
  };
  try {
    await service.ready();
  } catch (error) {
    await close();
    throw error;
  }
  return {
    router: service.router,
    listen: (port, host) => service.listen(port, host),
    reload: () => reloader?.reload() ?? Promise.resolve(true),
    activity: () => service.activity(),
    flushTraces: () => tracing?.flush() ?? Promise.resolve(),
    close,
  };
}
