import { Agent } from 'undici';
import { releaseIdleMemory, releaseStartupMemory } from '../../src/runtime/collect-garbage.js';
import { createSeededRandom } from '../../src/shared/seeded-random.js';
import { sharedTokenCounter } from '../helpers/start-stack.js';
import { collectGarbage } from '../../src/runtime/collect-garbage.js';
import { startMemorySampler, toSlopeMbPerMinute, type MemorySample } from './memory-sampler.js';
import { countResources, waitForBaseline, type ResourceCounts } from './resource-counts.js';
import { runSoakLoad, type LoadTally } from './run-soak-load.js';
import type { TrafficMix } from './soak-client.js';
import { toViolations, type SoakLimits, type SoakReport } from './soak-report.js';
import { SOAK_TIMEOUTS, startSoakFleet, type SoakFleet } from './start-soak-fleet.js';

export interface SoakOptions extends TrafficMix {
  seconds: number;
  concurrency: number;
  seed: number;
  limits: SoakLimits;
}

export const DEFAULT_SOAK_OPTIONS: SoakOptions = {
  seconds: 20,
  concurrency: 16,
  seed: 1,
  faultRate: 0.1,
  abortRate: 0.03,
  streamShare: 0.5,
  limits: {
    maxAttempts: 4,
    maxMeanAttempts: 1.5,
    timerTolerance: 2,
    maxRssSlopeMbPerMinute: 5,
    rssGateMinSeconds: 60,
    maxHeapSlopeMbPerMinute: 5,
    heapGateMinSeconds: 20,
    maxIdleRssGrowthPct: 20,
  },
};

const round1 = (value: number): number => Math.round(value * 10) / 10;

/** Time for in-flight work to drain and sockets to settle after the load stops, ms. */
const IDLE_MS = 1000;

const sortedRecord = <K>(map: Map<K, number>): Record<string, number> =>
  Object.fromEntries(
    [...map]
      .map(([key, value]): [string, number] => [String(key), value])
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );

async function readAfterIdle(fleet: SoakFleet): Promise<SoakReport['afterIdle']> {
  const simInFlight = (): number => fleet.sims.reduce((sum, sim) => sum + sim.stats().inFlight, 0);
  const deadline = performance.now() + 3000;
  while (simInFlight() > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const storeInFlight = [...(await fleet.store.getInFlight(fleet.deploymentIds)).values()];
  return {
    simOpenSockets: Object.fromEntries(fleet.sims.map((sim) => [sim.id, sim.stats().openSockets])),
    simInFlight: simInFlight(),
    storeInFlight: storeInFlight.reduce((sum, count) => sum + count, 0),
  };
}

function toAttempts(tally: LoadTally, upstreamCalls: number): SoakReport['attempts'] {
  return {
    upstreamCalls,
    meanPerRequest: tally.sent === 0 ? 0 : upstreamCalls / tally.sent,
    maxPerRequest: Math.max(0, ...tally.callsHistogram.keys()),
    maxHeader: tally.maxHeader,
    histogram: sortedRecord(tally.callsHistogram),
  };
}

function toMemory(
  samples: readonly MemorySample[],
  seconds: number,
  gcPause: { total: number; max: number },
  idle: IdleMemory,
): SoakReport['memory'] {
  return {
    rssIdleBeforeMb: round1(idle.beforeMb),
    rssIdleAfterMb: round1(idle.afterMb),
    releaseMs: round1(idle.releaseMs),
    gcPauseTotalMs: gcPause.total,
    gcPauseMaxMs: gcPause.max,
    rssStartMb: samples[0]?.rssMb ?? 0,
    rssEndMb: samples.at(-1)?.rssMb ?? 0,
    rssSlopeMbPerMinute: toSlopeMbPerMinute(samples, 'rssMb', seconds),
    heapSlopeMbPerMinute: toSlopeMbPerMinute(samples, 'heapUsedMb', seconds),
    samples: samples.length,
    series: samples.map((sample) => ({
      atSeconds: round1(sample.atSeconds),
      rssMb: round1(sample.rssMb),
      heapUsedMb: round1(sample.heapUsedMb),
    })),
  };
}

/** RSS at rest before and after the load, each read after the server's quiet-spell collection. */
interface IdleMemory {
  beforeMb: number;
  afterMb: number;
  releaseMs: number;
}

const MB = 1024 * 1024;

interface Measured {
  idle: IdleMemory;
  tally: LoadTally;
  upstreamCalls: number;
  afterIdle: SoakReport['afterIdle'];
  samples: readonly MemorySample[];
  gcPause: { total: number; max: number };
  logCounts: Record<string, number>;
}

/** Starts the fleet, runs the load, reads what is left once idle, and closes everything. */
async function measure(options: SoakOptions, gc: () => void): Promise<Measured> {
  const fleet = await startSoakFleet({ seed: options.seed, maxAttempts: options.limits.maxAttempts });
  const dispatcher = new Agent({
    connections: options.concurrency,
    headersTimeout: SOAK_TIMEOUTS.total_ms + 2000,
    bodyTimeout: SOAK_TIMEOUTS.total_ms + 2000,
  });
  try {
    // the process at rest before the load: the start-up collection a production start runs
    releaseStartupMemory();
    const idleBeforeMb = process.memoryUsage().rss / MB;
    const sampler = startMemorySampler({ intervalMs: 1000, gc });
    const tally = await runSoakLoad({
      url: fleet.url,
      dispatcher,
      upstream: fleet.upstream,
      random: createSeededRandom(options.seed),
      mix: options,
      concurrency: options.concurrency,
      seconds: options.seconds,
    });
    sampler.stop();
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const afterIdle = await readAfterIdle(fleet);
    // what the server does after a quiet spell (AUTOTIER_RELEASE_MEMORY_AFTER_MS)
    const releaseMs = releaseIdleMemory();
    const idle = { beforeMb: idleBeforeMb, afterMb: process.memoryUsage().rss / MB, releaseMs };
    const upstreamCalls = fleet.sims.reduce((sum, sim) => sum + sim.stats().chatRequests, 0);
    return {
      idle,
      tally,
      upstreamCalls,
      afterIdle,
      samples: sampler.samples(),
      gcPause: sampler.gcPauseMs(),
      logCounts: fleet.logger.counts(),
    };
  } finally {
    await dispatcher.close();
    await fleet.close();
  }
}

/**
 * The soak: `concurrency` clients for `seconds` against four simulated backends through the real app,
 * ~10% of requests faulting on their first attempt and ~3% of streams abandoned after the first chunk.
 * Resources are counted before anything starts and after the app, the backends and the clients closed.
 */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  sharedTokenCounter();
  const gc = collectGarbage;
  gc();
  const start: ResourceCounts = countResources();
  const { idle, tally, upstreamCalls, afterIdle, samples, gcPause, logCounts } = await measure(options, gc);
  gc();
  const end = await waitForBaseline({
    baseline: start,
    timerTolerance: options.limits.timerTolerance,
    timeoutMs: 3000,
  });
  const { limits, ...mix } = options;
  const report: Omit<SoakReport, 'violations'> = {
    options: { ...mix, ...limits, ...SOAK_TIMEOUTS },
    durationSeconds: tally.elapsedSeconds,
    requests: {
      sent: tally.sent,
      served: tally.outcomes.get('ok') ?? 0,
      perSecond: tally.sent / tally.elapsedSeconds,
    },
    outcomes: sortedRecord(tally.outcomes),
    examples: Object.fromEntries(tally.examples),
    faultsPlanned: sortedRecord(tally.faultsPlanned),
    attempts: toAttempts(tally, upstreamCalls),
    latencyMs: {
      p50: tally.latency.quantile(0.5),
      p99: tally.latency.quantile(0.99),
      max: tally.latency.max(),
    },
    afterIdle,
    resources: { start, end },
    memory: toMemory(samples, tally.elapsedSeconds, gcPause, idle),
    logCounts,
  };
  return { ...report, violations: toViolations(report, limits) };
}
