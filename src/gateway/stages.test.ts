import { describe, expect, it } from 'vitest';
import { testExchange } from '../../test/helpers/exchange-fixtures.js';
import { createManualClock } from '../shared/clock.js';
import type { StageName } from './exchange.js';
import { runStages, type Stage, type StageEvent } from './stages.js';

const clock = createManualClock(0);

/** A stage that takes `ms` on the clock, notes that it ran, and throws `error` when given one. */
function timedStage(name: StageName, ms: number, ran: string[], error?: Error): Stage {
  return {
    name,
    async run() {
      await Promise.resolve();
      ran.push(name);
      clock.advance(ms);
      if (error !== undefined) throw error;
    },
  };
}

describe('runStages', () => {
  it('runs every stage in order, each after the one before it ended, and times each', async () => {
    const ran: string[] = [];
    const events: StageEvent[] = [];
    const exchange = testExchange();
    await runStages(
      [timedStage('parse', 1, ran), timedStage('admit', 2, ran), timedStage('plan', 3, ran)],
      exchange,
      { clock, onStage: (event) => events.push(event) },
    );
    expect(ran).toEqual(['parse', 'admit', 'plan']);
    expect(exchange.timings).toEqual({ parse: 1, admit: 2, plan: 3 });
    expect(events.map(({ stage, ms, error }) => ({ stage, ms, error }))).toEqual([
      { stage: 'parse', ms: 1, error: undefined },
      { stage: 'admit', ms: 2, error: undefined },
      { stage: 'plan', ms: 3, error: undefined },
    ]);
    expect(events.every((event) => event.exchange === exchange)).toBe(true);
  });

  it('stops at the first error and rethrows it; the failing stage is timed and reported once with it', async () => {
    const ran: string[] = [];
    const events: StageEvent[] = [];
    const exchange = testExchange();
    const failure = new Error('limit reached');
    const run = runStages(
      [timedStage('parse', 1, ran), timedStage('admit', 5, ran, failure), timedStage('plan', 3, ran)],
      exchange,
      { clock, onStage: (event) => events.push(event) },
    );
    await expect(run).rejects.toBe(failure);
    expect(ran).toEqual(['parse', 'admit']);
    expect(exchange.timings).toEqual({ parse: 1, admit: 5 });
    expect(events.map(({ stage, ms, error }) => ({ stage, ms, error }))).toEqual([
      { stage: 'parse', ms: 1, error: undefined },
      { stage: 'admit', ms: 5, error: failure },
    ]);
  });

  it('runs without a listener', async () => {
    const ran: string[] = [];
    const exchange = testExchange();
    await runStages([timedStage('classify', 4, ran)], exchange, { clock, onStage: undefined });
    expect(ran).toEqual(['classify']);
    expect(exchange.timings).toEqual({ classify: 4 });
  });
});
