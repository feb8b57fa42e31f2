import { describe, expect, it } from 'vitest';
import { createManualClock } from '../shared/clock.js';
import { createCircuitBreaker } from './circuit-breaker.js';

describe('createCircuitBreaker', () => {
  it('opens after the threshold of consecutive failures, then lets exactly one probe through', () => {
    const clock = createManualClock(0);
    const breaker = createCircuitBreaker({ clock, failureThreshold: 2, openMs: 1000 });
    breaker.fail();
    expect(breaker.allow()).toBe(true);
    breaker.fail();
    expect(breaker.state()).toBe('open');
    expect(breaker.allow()).toBe(false);
    clock.advance(1000);
    expect(breaker.allow()).toBe(true);
    expect(breaker.allow()).toBe(false);
    breaker.succeed();
    expect(breaker.state()).toBe('closed');
  });

  it('opens again when the probe fails', () => {
    const clock = createManualClock(0);
    const breaker = createCircuitBreaker({ clock, failureThreshold: 1, openMs: 500 });
    breaker.fail();
    clock.advance(500);
    expect(breaker.allow()).toBe(true);
    breaker.fail();
    expect(breaker.allow()).toBe(false);
    clock.advance(499);
    expect(breaker.allow()).toBe(false);
  });

  it('forgets failures after a success', () => {
    const breaker = createCircuitBreaker({ clock: createManualClock(0), failureThreshold: 2, openMs: 500 });
    breaker.fail();
    breaker.succeed();
    breaker.fail();
    expect(breaker.state()).toBe('closed');
  });
});
