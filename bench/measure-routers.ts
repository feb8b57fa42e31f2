import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchData, MemoryReadings } from './bench-data.js';
import { STREAM_CHUNKS } from './bench-fleet.js';
import type { BenchSettings } from './bench-settings.js';
import { requireTarget, type Stack } from './bench-stack.js';
import { findFrontier, type Frontier } from './measure-frontier.js';
import { measureOverhead } from './measure-overhead.js';
import { measureStreamCapacity, measureStreamLatency } from './measure-streams.js';
import { readTreeCpuMs, readTreeRssMiB } from './process-tree.js';
import { pick, toTargets, type NamedTarget, type RouteName } from './routes.js';
import { startRssSampler } from './rss-sampler.js';
import { verifyTargets } from './verify-routes.js';

type RssReadings = { autotier?: number; portkey?: number };

export type RouterFigures = Pick<BenchData, 'overhead' | 'frontier' | 'streams' | 'memory'>;

/**
 * Everything measured on the single-process autotier and on Portkey, in this order: a check of
 * every route, concurrency-1 latency (the warm-up before the idle RSS reading), then the frontier
 * and stream runs with RSS sampled throughout, then a pause and the after-load RSS.
 */
export async function measureRouters(options: {
  stack: Stack;
  settings: BenchSettings;
  log: (message: string) => void;
}): Promise<RouterFigures> {
  const { stack, settings, log } = options;
  const { runner, bases } = stack;
  const zero = toTargets(bases, 'zero');
  const realistic = toTargets(bases, 'realistic');
  const paced = toTargets(bases, 'paced');
  await verifyTargets(zero, { deployment: 'zero' });
  await verifyTargets(realistic, { deployment: 'realistic' });
  await verifyTargets(paced, { deployment: 'paced', contentChunks: STREAM_CHUNKS });
  const pids = { autotier: stack.autotier.service.pid, portkey: stack.portkey?.pid };
  const referencePids: Partial<Record<RouteName, number>> = {};
  if ('service' in stack.nginx) referencePids.nginx = stack.nginx.service.pid;
  if ('service' in stack.nodeFloor) referencePids['node-floor'] = stack.nodeFloor.service.pid;
  const startRss = readAll(pids);

  log('added latency at concurrency 1 (zero-latency simulator)');
  const cpuMsOf = (route: RouteName): number | undefined => {
    if (route === 'autotier' || route === 'autotier-auto') return readTreeCpuMs(pids.autotier);
    if (route === 'portkey' && pids.portkey !== undefined) return readTreeCpuMs(pids.portkey);
    const referencePid = referencePids[route];
    return referencePid === undefined ? undefined : readTreeCpuMs(referencePid);
  };
  const overheadZero = await measureOverhead({ runner, targets: zero, cpuMsOf, ...settings.overhead });
  log('added latency at concurrency 1 (realistic simulator)');
  const overheadRealistic = await measureOverhead({
    runner,
    targets: realistic,
    rounds: 1,
    ...settings.realistic,
  });
  await sleep(settings.settleMs);
  const idleRss = readAll(pids);

  const samplers = [pids.autotier, pids.portkey].map((pid) =>
    pid === undefined ? undefined : startRssSampler(pid),
  );
  log('throughput frontier: autotier');
  const frontierAutotier = await searchFrontier(stack, settings, requireTarget(zero, 'autotier'));
  const portkeyTarget = pick(zero, 'portkey');
  if (portkeyTarget !== undefined) log('throughput frontier: Portkey');
  const frontierPortkey =
    portkeyTarget === undefined ? undefined : await searchFrontier(stack, settings, portkeyTarget);
  log('streams: time to first token and gaps');
  const streamTargets = paced.filter((target) => target.name !== 'autotier-auto');
  const latency = await measureStreamLatency({
    runner,
    targets: streamTargets,
    cpuMsOf,
    ...settings.streamLatency,
  });
  log(`streams: concurrency ladder ${settings.streamLevels.join('/')}`);
  const capacity = await measureStreamCapacity({
    runner,
    // the reference proxies are latency references only; their capacity is not in question
    targets: streamTargets.filter((target) => target.name !== 'nginx' && target.name !== 'node-floor'),
    levels: settings.streamLevels,
    retry: settings.retryFailedLevel,
  });
  const peak = { autotier: samplers[0]?.peakMiB(), portkey: samplers[1]?.peakMiB() };
  for (const sampler of samplers) sampler?.stop();
  await sleep(settings.afterLoadMs);
  const afterRss = readAll(pids);

  const memoryOf = (name: 'autotier' | 'portkey'): MemoryReadings | undefined => {
    const [startMiB, idleMiB, peakMiB, afterMiB] = [
      startRss[name],
      idleRss[name],
      peak[name],
      afterRss[name],
    ];
    if (startMiB === undefined || idleMiB === undefined || peakMiB === undefined || afterMiB === undefined)
      return undefined;
    return { startMiB, idleMiB, peakMiB: Math.max(peakMiB, afterMiB), afterMiB };
  };
  const autotierMemory = memoryOf('autotier');
  if (autotierMemory === undefined) throw new Error('autotier exited during the bench');
  const portkeyMemory = memoryOf('portkey');
  return {
    overhead: { zero: overheadZero, realistic: overheadRealistic },
    frontier: {
      durationSeconds: settings.frontier.durationSeconds,
      autotier: frontierAutotier,
      ...(frontierPortkey === undefined ? {} : { portkey: frontierPortkey }),
      autotierWorkers2: { unavailable: 'not measured' },
    },
    streams: {
      latency,
      latencyStreams: settings.streamLatency.streams,
      startIntervalMs: settings.streamLatency.startIntervalMs,
      capacity,
      levels: settings.streamLevels,
    },
    memory: { autotier: autotierMemory, ...(portkeyMemory === undefined ? {} : { portkey: portkeyMemory }) },
  };
}

/** Frontier of one router target against the zero-latency backend, sharing the stack's direct baselines. */
export async function searchFrontier(
  stack: Stack,
  settings: BenchSettings,
  router: NamedTarget,
): Promise<Frontier> {
  const direct = requireTarget(toTargets(stack.bases, 'zero'), 'direct');
  return findFrontier({
    runner: stack.runner,
    direct,
    router,
    baselines: stack.baselines,
    ...settings.frontier,
  });
}

function readAll(pids: { autotier: number; portkey: number | undefined }): RssReadings {
  const autotier = readTreeRssMiB(pids.autotier);
  const portkey = pids.portkey === undefined ? undefined : readTreeRssMiB(pids.portkey);
  return { ...(autotier === undefined ? {} : { autotier }), ...(portkey === undefined ? {} : { portkey }) };
}
