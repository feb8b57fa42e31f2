import { createServer, type Server } from 'node:http';
import type { Express, Router } from 'express';
import type { AddressInfo } from 'node:net';
import { createBalancer } from './balance/create-balancer.js';
import { startHealthProber } from './balance/start-health-prober.js';
import type { Classifier } from './classify/decision.js';
import type { LoadedTable } from './config/load-routing-table.js';
import type { TableRejection } from './config/watch-routing-table.js';
import { createGateway } from './gateway/create-gateway.js';
import { REQUEST_LIMITS } from './gateway/request-limits.js';
import { createHttpEdge } from './http/create-http-edge.js';
import { authenticateStage } from './gateway/stages/authenticate.js';
import { createDrain, type RequestActivity } from './http/drain.js';
import { createEdgeApp, createEdgeRouter } from './http/express-edge.js';
import { declareRoutes } from './http/routes.js';
import { createLogObserver } from './observe/log-observer.js';
import type { Logger } from './shared/logger.js';
import { createRedactingLogger } from './shared/redacting-logger.js';
import { createMetrics, type Metrics } from './observe/metrics.js';
import { createActivityHistory } from './observe/activity-history.js';
import { createRecentActivity } from './observe/recent-activity.js';
import { combineObservers } from './observe/request-summary.js';
import { toStateReport, type ReloadHistory } from './observe/state-report.js';
import { createTokenCounter, type TokenCounter } from './policy/token-counter.js';
import { toTokenizerNames } from './tokenizers/tokenizer-name.js';
import {
  systemClock,
  systemRandom,
  systemSleep,
  type Clock,
  type Random,
  type Sleep,
} from './shared/clock.js';
import { createMemoryStateStore } from './state/create-memory-state-store.js';
import type { StateStore } from './state/state-store.js';
import type { Tracer } from './shared/tracing.js';
import { trackStoreCalls } from './state/track-store-calls.js';
import { createHttpHealthCheck } from './upstream/create-http-health-check.js';
import { createHttpUpstream } from './upstream/create-http-upstream.js';
import type { HealthCheck } from './upstream/health-check.js';
import type { Upstream } from './upstream/upstream.js';

/** The shared-state store in use, and how it is doing (for /autotier/state). */
export interface SharedStateInfo {
  kind: 'memory' | 'redis';
  degraded: () => boolean;
  errors: () => number;
}

export interface ServiceOptions {
  table: LoadedTable;
  logger: Logger;
  /** Builds the classifier for a loaded table (called again after each reload). */
  createClassifier: (table: LoadedTable) => Classifier;
  clock?: Clock;
  random?: Random;
  sleep?: Sleep;
  store?: StateStore;
  sharedState?: SharedStateInfo;
  metrics?: Metrics;
  upstream?: Upstream;
  /** Background probes of benched deployments. @default HTTP, with `readSecret` */
  healthCheck?: HealthCheck;
  /** Waits between the health prober's looks at the cooldowns (not `sleep`, the balancer's). @default systemSleep */
  probeSleep?: Sleep;
  readSecret?: (name: string) => string | undefined;
  /** Token counter; it loads each tokenizer once (Qwen's in about a second), so share it where possible. */
  tokenCounter?: TokenCounter;
  /** Threads that count long prompts, 0 = none (the service's own counter only). @default min(4, cores) */
  countThreads?: number | undefined;
  /** Spans per request; main.ts passes the OpenTelemetry one when OTEL_* asks for it. @default passThroughTracer */
  tracer?: Tracer | undefined;
}

export interface Service {
  /** Every endpoint as an express app of its own (the request listener `listen` serves). */
  handle: Express;
  /** Every endpoint as an express Router, for mounting under any path of another express app. */
  router: Router;
  metrics: Metrics;
  /** Swaps the routing table; requests in flight keep the one they started with. */
  setTable(table: LoadedTable): void;
  /** Records a refused reload (shown in /autotier/state and counted in /metrics). */
  rejectTable(rejection: TableRejection): void;
  currentTable(): LoadedTable;
  /** Starts serving once the table's tokenizers are loaded (rejects if one fails to load). */
  listen(port: number, host?: string): Promise<{ server: Server; url: string }>;
  /** Resolves once the tokenizers are loaded (listen waits for this too). */
  ready(): Promise<void>;
  /** Requests the HTTP edge has started so far, and those in flight. */
  activity(): RequestActivity;
  /**
   * A graceful stop: /ready turns 503 and the listeners stop accepting at once; requests in
   * flight get up to `graceMs` to finish (later ones on open connections get 503 SHUTTING_DOWN), then
   * the rest are stopped with SHUTTING_DOWN; once their store calls have settled, everything closes.
   * Later calls (and close) return the first call's promise.
   */
  drain(graceMs: number): Promise<void>;
  /** `drain(0)`: requests still in flight are stopped at once. */
  close(): Promise<void>;
}

/** Longest wait for the store calls of the last requests (lease releases, refunds) before the store closes, ms. */
const STORE_SETTLE_MS = 5000;

/** Wires the core with concrete parts; main.ts and the tests both use it. */
export function buildService(options: ServiceOptions): Service {
  const clock = options.clock ?? systemClock;
  // every line any part writes is masked of credentials here, whatever logger was passed in
  const logger = createRedactingLogger(options.logger);
  let loaded = options.table;
  let classifier = options.createClassifier(loaded);
  const metrics = options.metrics ?? createMetrics();
  const storeCalls = trackStoreCalls(
    options.store ??
      createMemoryStateStore({ clock, onEvict: (count) => metrics.cacheEvicted('sessions', count) }),
    systemSleep,
  );
  const { store } = storeCalls;
  const sharedState = options.sharedState ?? {
    kind: 'memory' as const,
    degraded: () => false,
    errors: () => 0,
  };
  metrics.setInFlightSource(() =>
    store.getInFlight(loaded.table.deployments.map((deployment) => deployment.id)),
  );
  const activity = createRecentActivity({ clock });
  const history = createActivityHistory({ clock });
  const reloads: ReloadHistory = { applied: 0, rejected: 0, lastRejection: undefined };
  const observer = combineObservers([createLogObserver(logger), metrics.observer, activity, history]);
  const readSecret = options.readSecret ?? ((name: string) => process.env[name]);
  const upstream = options.upstream ?? createHttpUpstream({ clock, readSecret });
  const balancer = createBalancer({
    upstream,
    store,
    clock,
    random: options.random ?? systemRandom,
    sleep: options.sleep ?? systemSleep,
    logger,
    table: () => loaded.table,
    onAttempt: (attempt) => observer.onAttempt(attempt),
    onCooldown: (deploymentId, reason) => metrics.cooldown(deploymentId, reason),
    onContinuation: (event) => {
      metrics.continuation(event.outcome);
      activity.continuation(event);
    },
  });
  const healthCheck = options.healthCheck ?? createHttpHealthCheck({ readSecret });
  const prober = startHealthProber({
    store,
    healthCheck,
    clock,
    sleep: options.probeSleep ?? systemSleep,
    logger,
    table: () => loaded.table,
    onProbe: (deploymentId, outcome) => metrics.healthProbe(deploymentId, outcome),
  });
  const stopProbes = (): Promise<void> => prober.stop().then(() => healthCheck.close());
  const tokenCounter = options.tokenCounter ?? createTokenCounter({ countThreads: options.countThreads });
  /** Loads the tokenizers a table's deployments use, before requests need them. */
  const prepareTokenizers = async (table: LoadedTable): Promise<void> => {
    const tokenizers = toTokenizerNames(table.table.deployments);
    const started = clock.now();
    // the counting threads start on the first long prompt, not here: an idle server holds no thread heaps
    await tokenCounter.prepare(tokenizers);
    logger.info('tokenizers ready', { tokenizers, ms: Math.round(clock.now() - started) });
  };
  const tokenizersReady = prepareTokenizers(loaded);
  tokenizersReady.catch(() => undefined);
  const gateway = createGateway({
    table: () => loaded,
    classifier: () => classifier,
    balancer,
    store,
    tokenCounter,
    observer,
    clock,
    logger,
  });
  const servers: Server[] = [];
  let listenersClosed: Promise<unknown> = Promise.resolve();
  const drain = createDrain({
    clock,
    sleep: systemSleep,
    onStart: () => {
      listenersClosed = Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
      for (const server of servers) server.closeIdleConnections();
    },
  });
  const isReady = async (): Promise<boolean> => {
    if (drain.isDraining()) return false;
    const ids = loaded.table.deployments.map((deployment) => deployment.id);
    const cooldowns = await store.getCooldowns(ids);
    const now = clock.now();
    return ids.some((id) => (cooldowns.get(id)?.until ?? 0) <= now);
  };
  const state = (): Promise<Record<string, unknown>> =>
    toStateReport({
      loaded,
      store,
      activity: activity.snapshot(),
      reloads,
      now: clock.now(),
      sharedState: {
        kind: sharedState.kind,
        degraded: sharedState.degraded(),
        errors: sharedState.errors(),
      },
    });
  const edge = createHttpEdge({
    routes: declareRoutes({
      gateway,
      isReady,
      metrics: () => metrics.registry.metrics(),
      metricsContentType: metrics.registry.contentType,
      state,
      activity: () => activity.snapshot(),
      history: () => history.snapshot(),
      now: () => clock.now(),
    }),
    authenticate: authenticateStage((credentials) => gateway.authenticate(credentials)),
    settle: gateway.settle,
    onStage: gateway.onStage,
    clock,
    bodyLimits: { bytes: REQUEST_LIMITS.bodyBytes, depth: REQUEST_LIMITS.jsonDepth },
    drain,
    ...(options.tracer === undefined ? {} : { tracer: options.tracer }),
  });
  const drainService = async (graceMs: number): Promise<void> => {
    const outcome = await drain.drain(graceMs);
    for (const server of servers) server.closeAllConnections();
    await listenersClosed;
    const storeSettled = await storeCalls.settled(STORE_SETTLE_MS);
    logger.info('drained', {
      grace_ms: graceMs,
      in_flight: outcome.inFlightAtStart,
      stopped: outcome.stopped,
      left_over: outcome.leftOver,
      ms: Math.round(outcome.durationMs),
      store_settled: storeSettled,
    });
  };
  let closing: Promise<void> | undefined;
  const stop = (graceMs: number): Promise<void> => {
    closing ??= (async () => {
      await stopProbes();
      await drainService(graceMs);
      await upstream.close();
      await store.close();
      if (options.tokenCounter === undefined) await tokenCounter.close();
    })();
    return closing;
  };
  const handle = createEdgeApp(edge, logger);
  return {
    handle,
    router: createEdgeRouter(edge, logger),
    metrics,
    setTable(table) {
      loaded = table;
      classifier = options.createClassifier(table);
      reloads.applied += 1;
      metrics.tableReload('applied');
      prepareTokenizers(table).catch((error: unknown) =>
        logger.error('a tokenizer failed to load', { error: String(error) }),
      );
    },
    rejectTable(rejection) {
      reloads.rejected += 1;
      reloads.lastRejection = rejection;
      metrics.tableReload('rejected');
    },
    currentTable: () => loaded,
    activity: () => drain.activity(),
    ready: async () => {
      await tokenizersReady;
    },
    async listen(port, host = '127.0.0.1') {
      await tokenizersReady;
      return new Promise((resolve, reject) => {
        const server = createServer(handle);
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          resolve({ server, url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}` });
        });
        server.keepAliveTimeout = 65_000;
        servers.push(server);
      });
    },
    drain: stop,
    close: () => stop(0),
  };
}
