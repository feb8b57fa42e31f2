import { describe, expect, it } from 'vitest';
import { createManualTime, flushPromises } from '../../test/helpers/manual-time.js';
import { RouterError } from '../shared/errors.js';
import { createDrain, type DrainOutcome } from './drain.js';

function setUp(abortWaitMs = 2000) {
  const time = createManualTime(0);
  let starts = 0;
  const drain = createDrain({
    clock: time.clock,
    sleep: time.sleep,
    onStart: () => (starts += 1),
    abortWaitMs,
  });
  return { time, drain, starts: () => starts };
}

/** Settles `promise` into a box, so a test can see whether it has settled yet. */
function watch<T>(promise: Promise<T>): { value: T | undefined; settled: boolean } {
  const box: { value: T | undefined; settled: boolean } = { value: undefined, settled: false };
  void promise.then((value) => {
    box.value = value;
    box.settled = true;
  });
  return box;
}

describe('createDrain', () => {
  it('ends at once when nothing is in flight, after stopping the listeners once', async () => {
    const { drain, starts } = setUp();
    expect(drain.isDraining()).toBe(false);
    const first = drain.drain(30_000);
    expect(drain.isDraining()).toBe(true);
    expect(drain.drain(5)).toBe(first);
    expect(await first).toEqual<DrainOutcome>({ inFlightAtStart: 0, stopped: 0, leftOver: 0, durationMs: 0 });
    expect(starts()).toBe(1);
    expect(drain.signal.aborted).toBe(false);
  });

  it('waits for the requests in flight and ends when the last one does, before the grace period', async () => {
    const { time, drain } = setUp();
    const releaseA = drain.track();
    const releaseB = drain.track();
    const outcome = watch(drain.drain(30_000));
    await time.advance(1000);
    releaseA();
    releaseA(); // a second release of the same request counts once
    await time.advance(1000);
    expect(outcome.settled).toBe(false);
    releaseB();
    await flushPromises();
    expect(outcome.value).toEqual({ inFlightAtStart: 2, stopped: 0, leftOver: 0, durationMs: 2000 });
    expect(drain.signal.aborted).toBe(false);
    expect(time.pending()).toBe(0);
  });

  it('stops what is still running when the grace period ends, with SHUTTING_DOWN and Retry-After', async () => {
    const { time, drain } = setUp();
    const release = drain.track();
    drain.signal.addEventListener('abort', () => release());
    const outcome = watch(drain.drain(30_000));
    await time.advance(29_999);
    expect(drain.signal.aborted).toBe(false);
    await time.advance(1);
    expect(drain.signal.aborted).toBe(true);
    const reason = drain.signal.reason as RouterError;
    expect(reason).toBeInstanceOf(RouterError);
    expect(reason).toMatchObject({ code: 'SHUTTING_DOWN', status: 503, retryAfterSeconds: 1 });
    await flushPromises();
    expect(outcome.value).toEqual({ inFlightAtStart: 1, stopped: 1, leftOver: 0, durationMs: 30_000 });
  });

  it('gives stopped requests abortWaitMs to end, then reports those left over', async () => {
    const { time, drain } = setUp(500);
    drain.track(); // never ends, not even when stopped
    const outcome = watch(drain.drain(1000));
    await time.advance(1499);
    expect(outcome.settled).toBe(false);
    await time.advance(1);
    expect(outcome.value).toEqual({ inFlightAtStart: 1, stopped: 1, leftOver: 1, durationMs: 1500 });
  });

  it('with a grace of 0 stops the requests in flight at once', async () => {
    const { time, drain } = setUp();
    const release = drain.track();
    drain.signal.addEventListener('abort', () => release());
    const outcome = await drain.drain(0);
    expect(outcome).toEqual({ inFlightAtStart: 1, stopped: 1, leftOver: 0, durationMs: 0 });
    expect(time.sleeps).toEqual([]); // nothing waited: the stopped request ended at once
  });

  it('waits for a request that arrives during the drain (on a connection still open) too', async () => {
    const { time, drain } = setUp();
    const first = drain.track();
    const outcome = watch(drain.drain(10_000));
    const late = drain.track();
    first();
    await time.advance(100);
    expect(outcome.settled).toBe(false);
    late();
    await flushPromises();
    expect(outcome.value).toEqual({ inFlightAtStart: 1, stopped: 0, leftOver: 0, durationMs: 100 });
  });
});
