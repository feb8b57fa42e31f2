import { stringify } from 'yaml';
import { buildService, type Service } from '../../src/build-service.js';
import type { Classifier } from '../../src/classify/decision.js';
import { parseRoutingTable, type LoadedTable } from '../../src/config/load-routing-table.js';
import type { RoutingTableInput } from '../../src/config/routing-table-schema.js';
import { createRecordingLogger } from '../../src/shared/logger.js';
import type { Clock, Random, Sleep } from '../../src/shared/clock.js';
import type { StateStore } from '../../src/state/state-store.js';
import { createTokenCounter, type TokenCounter } from '../../src/policy/token-counter.js';
import { createSimulatedFleet, type SimBackend, type SimBackendOptions } from '../../sim/index.js';

export interface StackOptions {
  backends: SimBackendOptions[];
  /** Builds the routing table once the simulated backends have their ports. */
  table: (urls: Record<string, string>) => RoutingTableInput;
  random?: Random;
  clock?: Clock;
  /** The balancer's backoff sleep. @default systemSleep */
  sleep?: Sleep;
  classifier?: (table: LoadedTable) => Classifier;
  store?: StateStore;
  /** @default sharedTokenCounter() */
  tokenCounter?: TokenCounter;
}

export interface Stack {
  url: string;
  service: Service;
  sim: (id: string) => SimBackend;
  logger: ReturnType<typeof createRecordingLogger>;
  loadTable(input: RoutingTableInput): LoadedTable;
  close(): Promise<void>;
}

/** A classifier for tests that route by tier alias only: it fails loudly if a test reaches it. */
export const unreachableClassifier = (): Classifier => ({
  classify: () =>
    Promise.reject(new Error('this test routes by tier alias; the classifier must not be called')),
});

let sharedCounter: TokenCounter | undefined;
/** One token counter per test process: it loads each tokenizer once (Qwen's in about a second). */
export function sharedTokenCounter(): TokenCounter {
  sharedCounter ??= createTokenCounter();
  return sharedCounter;
}

export function toTable(input: RoutingTableInput): LoadedTable {
  return parseRoutingTable({ text: stringify(input), source: '<test>', now: Date.now() });
}

/** Starts simulated backends and the real app, both on port 0. */
export async function startStack(options: StackOptions): Promise<Stack> {
  const fleet = await createSimulatedFleet({ backends: options.backends });
  const urls = Object.fromEntries(fleet.backends.map((backend) => [backend.id, backend.baseUrl]));
  const logger = createRecordingLogger();
  const service = buildService({
    table: toTable(options.table(urls)),
    logger,
    tokenCounter: options.tokenCounter ?? sharedTokenCounter(),
    createClassifier: options.classifier ?? unreachableClassifier,
    ...(options.random === undefined ? {} : { random: options.random }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
    ...(options.store === undefined ? {} : { store: options.store }),
  });
  const { url } = await service.listen(0);
  return {
    url,
    service,
    sim: (id) => fleet.byId(id),
    logger,
    loadTable: (input) => toTable(input),
    async close() {
      await service.close();
      await fleet.close();
    },
  };
}

/** Timeouts small enough for tests. */
export const FAST_TIMEOUTS = { connect_ms: 500, ttft_ms: 800, idle_ms: 500, total_ms: 4000 };

export interface SimpleTableOptions {
  urls: Record<string, string>;
  group: string[];
  fallback?: string[];
  timeouts?: Partial<typeof FAST_TIMEOUTS>;
  cooldownMs?: number;
}

/** One table whose four tiers all use the same group and fallback chain. */
export function simpleTable(options: SimpleTableOptions): RoutingTableInput {
  const tier = {
    group: options.group,
    fallback: options.fallback ?? [],
    timeouts: { ...FAST_TIMEOUTS, ...options.timeouts },
    max_tokens: { cap: 256, default: 16 },
  };
  return {
    deployments: Object.entries(options.urls).map(([id, url]) => ({
      id,
      model: `sim-model`,
      base_url: url,
      context_window: 32768,
    })),
    tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
    balancer: {
      cooldown_ms: options.cooldownMs ?? 5000,
      retry: { max_attempts: 4, backoff_base_ms: 50, backoff_max_ms: 200, retry_after_cap_ms: 3000 },
    },
  };
}

export async function postChat(
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

export const HELLO = [{ role: 'user', content: 'hello there' }];

/** Splits an SSE body into its data payloads. */
export function toSseData(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice(6));
}
