import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBalancer } from './balance/create-balancer.js';
import type { Classifier } from './classify/decision.js';
import type { LoadedTable } from './config/load-routing-table.js';
import { createGateway } from './gateway/create-gateway.js';
import { createApp } from './http/create-app.js';
import type { Logger } from './observe/logger.js';
import { createTokenCounter, type TokenCounter } from './policy/token-counter.js';
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
import { createHttpUpstream } from './upstream/create-http-upstream.js';
import type { Upstream } from './upstream/upstream.js';

export interface ServiceOptions {
  table: LoadedTable;
  logger: Logger;
  /** Builds the classifier for a loaded table (called again after each reload). */
  createClassifier: (table: LoadedTable) => Classifier;
  clock?: Clock;
  random?: Random;
  sleep?: Sleep;
  store?: StateStore;
  upstream?: Upstream;
  readSecret?: (name: string) => string | undefined;
  /** Token counter; building one loads a BPE table (about 1.5 s), so share it where possible. */
  tokenCounter?: TokenCounter;
}

export interface Service {
  app: ReturnType<typeof createApp>;
  /** Swaps the routing table; requests in flight keep the one they started with. */
  setTable(table: LoadedTable): void;
  currentTable(): LoadedTable;
  listen(port: number, host?: string): Promise<{ server: Server; url: string }>;
  close(): Promise<void>;
}

/** Wires the core with concrete parts; main.ts and the tests both use it. */
export function buildService(options: ServiceOptions): Service {
  const clock = options.clock ?? systemClock;
  let loaded = options.table;
  let classifier = options.createClassifier(loaded);
  const store = options.store ?? createMemoryStateStore({ clock });
  const upstream =
    options.upstream ??
    createHttpUpstream({ clock, readSecret: options.readSecret ?? ((name) => process.env[name]) });
  const balancer = createBalancer({
    upstream,
    store,
    clock,
    random: options.random ?? systemRandom,
    sleep: options.sleep ?? systemSleep,
    logger: options.logger,
    table: () => loaded.table,
  });
  const tokenCounter = options.tokenCounter ?? createTokenCounter({ encoding: 'o200k_base' });
  const gateway = createGateway({
    table: () => loaded,
    classifier: () => classifier,
    balancer,
    store,
    tokenCounter,
    clock,
    logger: options.logger,
  });
  const isReady = async (): Promise<boolean> => {
    const ids = loaded.table.deployments.map((deployment) => deployment.id);
    const cooldowns = await store.getCooldowns(ids);
    const now = clock.now();
    return ids.some((id) => (cooldowns.get(id)?.until ?? 0) <= now);
  };
  const app = createApp({ gateway, logger: options.logger, clock, isReady });
  const servers: Server[] = [];
  return {
    app,
    setTable(table) {
      loaded = table;
      classifier = options.createClassifier(table);
    },
    currentTable: () => loaded,
    listen(port, host = '127.0.0.1') {
      return new Promise((resolve, reject) => {
        const server = app.listen(port, host, (error?: Error) => {
          if (error !== undefined) return reject(error);
          const address = server.address() as AddressInfo;
          resolve({ server, url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}` });
        });
        server.keepAliveTimeout = 65_000;
        servers.push(server);
      });
    },
    async close() {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
      await upstream.close();
      await store.close();
    },
  };
}
