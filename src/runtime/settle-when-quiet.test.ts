import { describe, expect, it } from 'vitest';
import { createManualClock } from '../shared/clock.js';
import { createQuietSettler, type Activity } from './settle-when-quiet.js';

function setUp(quietMs = 5000) {
  const clock = createManualClock(0);
  const activity: Activity = { started: 0, inFlight: 0 };
  let settled = 0;
  const settler = createQuietSettler({
    clock,
    quietMs,
    readActivity: () => ({ ...activity }),
    settle: () => {
      settled += 1;
    },
  });
  return { clock, activity, settler, settledCount: () => settled };
}

describe('createQuietSettler', () => {
  it('never settles a process that has had no request', () => {
    const { clock, settler, settledCount } = setUp();
    for (let step = 0; step < 10; step += 1) {
      clock.advance(10_000);
      settler.check();
    }
    expect(settledCount()).toBe(0);
  });

  it('settles once, quietMs after the last check that saw a request', () => {
    const { clock, activity, settler, settledCount } = setUp(5000);
    activity.started = 3;
    activity.inFlight = 1;
    clock.advance(1000);
    expect(settler.check()).toBe(false);
    activity.inFlight = 0;
    clock.advance(1000);
    expect(settler.check()).toBe(false);
    clock.advance(3999);
    expect(settler.check()).toBe(false);
    clock.advance(1);
    expect(settler.check()).toBe(true);
    clock.advance(60_000);
    expect(settler.check()).toBe(false);
    expect(settledCount()).toBe(1);
  });

  it('waits while a long request is in flight, however long', () => {
    const { clock, activity, settler, settledCount } = setUp(5000);
    activity.started = 1;
    activity.inFlight = 1;
    for (let step = 0; step < 20; step += 1) {
      clock.advance(5000);
      settler.check();
    }
    expect(settledCount()).toBe(0);
  });

  it('starts over when requests come back after a settle', () => {
    const { clock, activity, settler, settledCount } = setUp(5000);
    activity.started = 1;
    settler.check();
    clock.advance(5000);
    settler.check();
    activity.started = 2;
    clock.advance(1000);
    expect(settler.check()).toBe(false);
    clock.advance(4000);
    expect(settler.check()).toBe(false);
    clock.advance(1000);
    expect(settler.check()).toBe(true);
    expect(settledCount()).toBe(2);
  });

  it('a request started and finished between two checks counts as activity', () => {
    const { clock, activity, settler, settledCount } = setUp(5000);
    activity.started = 1;
    settler.check();
    clock.advance(4000);
    activity.started = 2;
    clock.advance(2000);
    expect(settler.check()).toBe(false);
    clock.advance(4999);
    expect(settler.check()).toBe(false);
    clock.advance(1);
    expect(settler.check()).toBe(true);
    expect(settledCount()).toBe(1);
  });
});
