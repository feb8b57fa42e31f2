import type { Clock } from '../shared/clock.js';
import type { Exchange, StageName } from './exchange.js';

export { STAGE_NAMES, type StageName } from './exchange.js';

/** One step of the pipeline: reads the exchange, writes its own part of it, or throws the request's error. */
export interface Stage<T = unknown> {
  readonly name: StageName;
  run(exchange: Exchange<T>): Promise<void> | void;
}

/** A stage that ran: its endpoint, how long it took and the error it threw, if any (an observer's StageTiming, and the exchange). */
export interface StageEvent {
  stage: StageName;
  endpoint: Exchange['endpoint'];
  exchange: Exchange;
  ms: number;
  error: unknown;
}

export type StageListener = (event: StageEvent) => void;

/**
 * Runs `stages` in order on one exchange, as Fastify runs a route's hooks: each stage starts when the
 * one before it ended, the first error stops the list and is thrown, and every stage that ran is timed
 * in `exchange.timings` and reported to `onStage`.
 */
export async function runStages<T>(
  stages: readonly Stage<T>[],
  exchange: Exchange<T>,
  options: { clock: Clock; onStage: StageListener | undefined },
): Promise<void> {
  const { clock, onStage } = options;
  // one clock read per boundary: a stage ends when the next one starts
  let started = clock.now();
  for (const stage of stages) {
    let error: unknown;
    try {
      // a stage that finished synchronously is not awaited: no microtask turn per stage
      const running = stage.run(exchange);
      if (running !== undefined) await running;
    } catch (thrown) {
      error = thrown;
      throw thrown;
    } finally {
      const ended = clock.now();
      const ms = ended - started;
      started = ended;
      exchange.timings[stage.name] = ms;
      onStage?.({ stage: stage.name, endpoint: exchange.endpoint, exchange, ms, error });
    }
  }
}
