import { buildService } from '../../src/build-service.js';
import type { RoutingTableInput } from '../../src/config/routing-table-schema.js';
import { createSeededRandom } from '../../src/shared/seeded-random.js';
import { systemClock } from '../../src/shared/clock.js';
import { createSimulatedFleet, type SimBackend, type SimBackendOptions } from '../../sim/index.js';
import { createMemoryStateStore } from '../../src/state/create-memory-state-store.js';
import type { StateStore } from '../../src/state/state-store.js';
import { createHttpUpstream } from '../../src/upstream/create-http-upstream.js';
import { sharedTokenCounter, toTable, unreachableClassifier } from '../helpers/start-stack.js';
import { createCountingLogger, type CountingLogger } from './counting-logger.js';
import { createFaultInjectingUpstream, type FaultInjectingUpstream } from './fault-injecting-upstream.js';

/**
 * Per-tier timeouts of the soak, in ms: the slow-first-token fault (2500 ms) is beyond ttft_ms, the
 * stall fault beyond idle_ms, and both stay well above what a healthy request takes on a busy shared
 * machine (client, app and backends share one event loop), so timeouts come from faults, not load.
 */
export const SOAK_TIMEOUTS = { connect_ms: 2000, ttft_ms: 1500, idle_ms: 1000, total_ms: 8000 };

/** Four backends with small realistic latencies: 20-60 ms to the first token, 120-250 tokens/s. */
const BACKENDS: readonly (Pick<SimBackendOptions, 'id' | 'latency'> & { seed: number })[] = [
  { id: 'a', seed: 11, latency: { ttftMs: 20, jitterMs: 20, tokensPerSecond: 250 } },
  { id: 'b', seed: 12, latency: { ttftMs: 30, jitterMs: 20, tokensPerSecond: 200 } },
  { id: 'c', seed: 13, latency: { ttftMs: 40, jitterMs: 20, tokensPerSecond: 150 } },
  { id: 'd', seed: 14, latency: { ttftMs: 30, jitterMs: 30, tokensPerSecond: 120 } },
];

export interface SoakFleetOptions {
  seed: number;
  maxAttempts: number;
}

export interface SoakFleet {
  url: string;
  sims: SimBackend[];
  store: StateStore;
  upstream: FaultInjectingUpstream;
  logger: CountingLogger;
  deploymentIds: string[];
  close(): Promise<void>;
}

/**
 * SIMPLE and MODERATE balance a, b, c by fewest in flight with d as fallback; COMPLEX and EXPERT
 * balance c, d by latency with a as fallback; so the in-flight counters and the latency EWMAs are
 * exercised, and a leaked in-flight count would skew the choice.
 */
function toSoakTable(urls: Record<string, string>, options: SoakFleetOptions): RoutingTableInput {
  const tier = (group: string[], fallback: string[], strategy: 'least_busy' | 'latency') => ({
    group,
    fallback,
    strategy,
    timeouts: SOAK_TIMEOUTS,
    max_tokens: { cap: 64, default: 24 },
  });
  const small = tier(['a', 'b', 'c'], ['d'], 'least_busy');
  const large = tier(['c', 'd'], ['a'], 'latency');
  return {
    deployments: BACKENDS.map(({ id }) => ({
      id,
      model: 'sim-model',
      base_url: urls[id] ?? '',
      context_window: 32_768,
    })),
    tiers: { SIMPLE: small, MODERATE: small, COMPLEX: large, EXPERT: large },
    balancer: {
      cooldown_ms: 100,
      max_cooldown_ms: 1000,
      retry: {
        max_attempts: options.maxAttempts,
        backoff_base_ms: 20,
        backoff_max_ms: 200,
        retry_after_cap_ms: 1000,
      },
    },
  };
}

/** The simulated fleet and the real app (port 0), wired with the fault-injecting upstream. */
export async function startSoakFleet(options: SoakFleetOptions): Promise<SoakFleet> {
  const fleet = await createSimulatedFleet({
    backends: BACKENDS.map(({ id, latency, seed }) => ({
      id,
      models: ['sim-model'],
      ...(latency === undefined ? {} : { latency }),
      random: createSeededRandom(options.seed * 100 + seed),
    })),
  });
  const urls = Object.fromEntries(fleet.backends.map((backend) => [backend.id, backend.baseUrl]));
  const store = createMemoryStateStore({ clock: systemClock });
  const logger = createCountingLogger();
  const upstream = createFaultInjectingUpstream(
    createHttpUpstream({ clock: systemClock, readSecret: () => undefined }),
  );
  const service = buildService({
    table: toTable(toSoakTable(urls, options)),
    logger,
    tokenCounter: sharedTokenCounter(),
    createClassifier: unreachableClassifier,
    random: createSeededRandom(options.seed),
    store,
    upstream,
  });
  const { url } = await service.listen(0);
  return {
    url,
    sims: fleet.backends,
    store,
    upstream,
    logger,
    deploymentIds: BACKENDS.map(({ id }) => id),
    async close() {
      await service.close();
      await fleet.close();
    },
  };
}
