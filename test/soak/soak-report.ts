import type { ResourceCounts } from './resource-counts.js';

export interface SoakLimits {
  /** The routing table's retry.max_attempts: no request may make more upstream calls. */
  maxAttempts: number;
  /** Upstream calls per client request above this mean a retry storm. */
  maxMeanAttempts: number;
  /** Timers allowed above the start count after everything is closed (runtime-internal ones). */
  timerTolerance: number;
  /**
   * RSS growth over the second half of the run, MB per minute, gated on runs of `rssGateMinSeconds` or
   * more. Shorter runs end their second half inside the allocator's warm-up: at concurrency 16 RSS
   * climbs 7-13 MB/min from 10 to 30 s with a flat heap, then drops back (10 MB at once near 35 s) and
   * stays flat (a 120 s run measured 0.5 MB/min over its second half).
   */
  maxRssSlopeMbPerMinute: number;
  rssGateMinSeconds: number;
  /**
   * Growth of the V8 heap after a forced full GC, second half, MB per minute; steady from 20 s on
   * (1-1.5 MB/min at 20-40 s, 0.3 over a 120 s run), so it guards the short CI run.
   */
  maxHeapSlopeMbPerMinute: number;
  heapGateMinSeconds: number;
  /**
   * Idle RSS after the load (once the server has handed memory back, as it does after a quiet spell)
   * may exceed the idle RSS before it by at most this, %.
   */
  maxIdleRssGrowthPct: number;
}

export interface SoakReport {
  options: Record<string, number | string>;
  durationSeconds: number;
  requests: { sent: number; served: number; perSecond: number };
  /** Client-side outcome classes: ok, client_abort, http_<status>:<code>, in_band:<code>, broken:<why>. */
  outcomes: Record<string, number>;
  /** The first error message seen per failed outcome class. */
  examples: Record<string, string>;
  /** Faults planned on first attempts, by name. */
  faultsPlanned: Record<string, number>;
  attempts: {
    /** Chat requests counted by the simulators. */
    upstreamCalls: number;
    meanPerRequest: number;
    /** Largest count of upstream calls made for one request (every request, answered or not). */
    maxPerRequest: number;
    /** Largest x-autotier-attempts header seen. */
    maxHeader: number;
    histogram: Record<string, number>;
  };
  latencyMs: { p50: number; p99: number; max: number };
  afterIdle: {
    /** Sockets open at each simulator once traffic stopped: autotier's idle keep-alive pool. */
    simOpenSockets: Record<string, number>;
    simInFlight: number;
    /** In-flight counters left in the state store (each would block a deployment slot forever). */
    storeInFlight: number;
  };
  resources: { start: ResourceCounts; end: ResourceCounts };
  memory: {
    /** RSS at rest before the load and after it, each after the server's quiet-spell collection, MB. */
    rssIdleBeforeMb: number;
    rssIdleAfterMb: number;
    /** How long that collection held the main thread after the load, ms. */
    releaseMs: number;
    rssStartMb: number;
    rssEndMb: number;
    rssSlopeMbPerMinute: number;
    heapSlopeMbPerMinute: number;
    samples: number;
    /** Every sample, for plotting: seconds since start, RSS and heap after GC, MB. */
    series: { atSeconds: number; rssMb: number; heapUsedMb: number }[];
    /** Event-loop time spent in the forced collections before each sample, ms. */
    gcPauseTotalMs: number;
    gcPauseMaxMs: number;
  };
  logCounts: Record<string, number>;
  violations: string[];
}

/** Why a run fails, empty when it passes. */
export function toViolations(report: Omit<SoakReport, 'violations'>, limits: SoakLimits): string[] {
  const violations: string[] = [];
  const { attempts, afterIdle, resources, memory } = report;
  if (attempts.maxPerRequest > limits.maxAttempts || attempts.maxHeader > limits.maxAttempts)
    violations.push(
      `a request made ${attempts.maxPerRequest} upstream calls (max_attempts ${limits.maxAttempts})`,
    );
  if (attempts.meanPerRequest > limits.maxMeanAttempts)
    violations.push(`retry storm: ${attempts.meanPerRequest.toFixed(3)} upstream calls per request`);
  const broken = Object.entries(report.outcomes).filter(
    ([outcome]) => outcome.startsWith('broken:') || outcome.startsWith('http_500'),
  );
  if (broken.length > 0) violations.push(`protocol violations or internal errors: ${JSON.stringify(broken)}`);
  if (afterIdle.simInFlight > 0) violations.push(`${afterIdle.simInFlight} upstream requests never ended`);
  // Each client has at most one upstream call open at a time, so an idle keep-alive pool holds no more
  // sockets to one backend than there are clients; more means sockets leak per request.
  const concurrency = Number(report.options['concurrency']);
  const crowded = Object.entries(afterIdle.simOpenSockets).filter(([, open]) => open > concurrency);
  if (crowded.length > 0) violations.push(`idle sockets above concurrency: ${JSON.stringify(crowded)}`);
  if (afterIdle.storeInFlight > 0) violations.push(`${afterIdle.storeInFlight} in-flight counts leaked`);
  if (resources.end.sockets > resources.start.sockets || resources.end.servers > resources.start.servers)
    violations.push(`sockets left open: ${JSON.stringify(resources)}`);
  if (resources.end.timers > resources.start.timers + limits.timerTolerance)
    violations.push(`timers left running: ${JSON.stringify(resources)}`);
  if (
    report.durationSeconds >= limits.rssGateMinSeconds &&
    memory.rssSlopeMbPerMinute > limits.maxRssSlopeMbPerMinute
  )
    violations.push(`RSS grows ${memory.rssSlopeMbPerMinute.toFixed(2)} MB/min in the second half`);
  if (
    report.durationSeconds >= limits.heapGateMinSeconds &&
    memory.heapSlopeMbPerMinute > limits.maxHeapSlopeMbPerMinute
  )
    violations.push(`the heap grows ${memory.heapSlopeMbPerMinute.toFixed(2)} MB/min in the second half`);
  const idleGrowthPct = ((memory.rssIdleAfterMb - memory.rssIdleBeforeMb) / memory.rssIdleBeforeMb) * 100;
  if (idleGrowthPct > limits.maxIdleRssGrowthPct)
    violations.push(
      `idle RSS after the load is ${idleGrowthPct.toFixed(1)}% above the idle RSS before it (${memory.rssIdleBeforeMb.toFixed(1)} -> ${memory.rssIdleAfterMb.toFixed(1)} MB)`,
    );
  return violations;
}

const round = (value: number, digits = 2): number => Number(value.toFixed(digits));

/** The report as an aligned two-column table. */
export function formatReport(report: SoakReport): string {
  const { requests, attempts, latencyMs, afterIdle, resources, memory } = report;
  const rows: [string, string][] = [
    ['duration', `${round(report.durationSeconds, 1)} s at concurrency ${report.options['concurrency']}`],
    ['requests sent / served', `${requests.sent} / ${requests.served} (${round(requests.perSecond, 1)}/s)`],
    ...Object.entries(report.outcomes).map(([outcome, count]): [string, string] => [
      `  ${outcome}`,
      `${count}`,
    ]),
    ['faults planned', JSON.stringify(report.faultsPlanned)],
    ['upstream calls / request', `${round(attempts.meanPerRequest, 3)} (${attempts.upstreamCalls} calls)`],
    ['max calls for one request', `${attempts.maxPerRequest} (header max ${attempts.maxHeader})`],
    ['calls per request histogram', JSON.stringify(attempts.histogram)],
    [
      'latency p50 / p99 / max',
      `${round(latencyMs.p50, 1)} / ${round(latencyMs.p99, 1)} / ${round(latencyMs.max, 1)} ms`,
    ],
    ['sim sockets open after idle', JSON.stringify(afterIdle.simOpenSockets)],
    ['sim in flight / store in flight', `${afterIdle.simInFlight} / ${afterIdle.storeInFlight}`],
    ['sockets start -> end', `${resources.start.sockets} -> ${resources.end.sockets}`],
    ['servers start -> end', `${resources.start.servers} -> ${resources.end.servers}`],
    ['timers start -> end', `${resources.start.timers} -> ${resources.end.timers}`],
    [
      'idle RSS before -> after the load',
      `${round(memory.rssIdleBeforeMb, 1)} -> ${round(memory.rssIdleAfterMb, 1)} MB (release ${round(memory.releaseMs, 1)} ms)`,
    ],
    [
      'RSS start -> end',
      `${round(memory.rssStartMb, 1)} -> ${round(memory.rssEndMb, 1)} MB (${memory.samples} samples)`,
    ],
    ['RSS slope, 2nd half', `${round(memory.rssSlopeMbPerMinute)} MB/min`],
    ['heap slope, 2nd half', `${round(memory.heapSlopeMbPerMinute)} MB/min`],
    [
      'forced GC pauses',
      `${round(memory.gcPauseTotalMs, 0)} ms in all, longest ${round(memory.gcPauseMaxMs, 0)} ms`,
    ],
    ['verdict', report.violations.length === 0 ? 'PASS' : `FAIL: ${report.violations.join('; ')}`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n');
}
