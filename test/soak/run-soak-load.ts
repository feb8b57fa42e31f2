import type { Dispatcher } from 'undici';
import type { Random } from '../../src/shared/clock.js';
import { createLatencyHistogram } from './latency-histogram.js';
import type { FaultInjectingUpstream } from './fault-injecting-upstream.js';
import { planRequest, sendPlanned, type TrafficMix } from './soak-client.js';

export interface LoadInput {
  url: string;
  dispatcher: Dispatcher;
  upstream: FaultInjectingUpstream;
  random: Random;
  mix: TrafficMix;
  concurrency: number;
  seconds: number;
}

/** What the clients saw; every map is bounded by the number of outcome classes, not of requests. */
export interface LoadTally {
  sent: number;
  outcomes: Map<string, number>;
  faultsPlanned: Map<string, number>;
  /** The first error message seen per outcome class. */
  examples: Map<string, string>;
  /** Requests by number of upstream calls made for them. */
  callsHistogram: Map<number, number>;
  maxHeader: number;
  latency: ReturnType<typeof createLatencyHistogram>;
  elapsedSeconds: number;
}

const increment = <K>(map: Map<K, number>, key: K): void => {
  map.set(key, (map.get(key) ?? 0) + 1);
};

/** `concurrency` closed-loop clients sending planned requests until `seconds` have passed. */
export async function runSoakLoad(input: LoadInput): Promise<LoadTally> {
  const tally: LoadTally = {
    sent: 0,
    outcomes: new Map(),
    faultsPlanned: new Map(),
    examples: new Map(),
    callsHistogram: new Map(),
    maxHeader: 0,
    latency: createLatencyHistogram(),
    elapsedSeconds: 0,
  };
  const started = performance.now();
  const endAt = started + input.seconds * 1000;
  const client = async (): Promise<void> => {
    while (performance.now() < endAt) {
      const plan = planRequest(tally.sent, input.random, input.mix);
      tally.sent += 1;
      if (plan.fault !== undefined) increment(tally.faultsPlanned, plan.fault.name);
      input.upstream.plan(plan.id, plan.fault);
      const result = await sendPlanned({ url: input.url, dispatcher: input.dispatcher, plan });
      increment(tally.outcomes, result.outcome);
      if (result.message !== undefined && !tally.examples.has(result.outcome))
        tally.examples.set(result.outcome, result.message);
      increment(tally.callsHistogram, input.upstream.takeAttempts(plan.id));
      tally.maxHeader = Math.max(tally.maxHeader, result.attemptsHeader ?? 0);
      tally.latency.add(result.latencyMs);
    }
  };
  await Promise.all(Array.from({ length: input.concurrency }, client));
  tally.elapsedSeconds = (performance.now() - started) / 1000;
  return tally;
}
