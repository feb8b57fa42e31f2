import { describe, expect, it } from 'vitest';
import { decideAvailability } from './decide-availability.js';

const benched = { until: 2000, reason: 'UPSTREAM_SERVER_ERROR', failures: 1 };

describe('decideAvailability', () => {
  it('lets a healthy deployment with room take the call', () => {
    expect(decideAvailability({ inFlight: 0, maxConcurrency: 2, cooldown: undefined, now: 0 })).toEqual({
      kind: 'free',
    });
  });

  it('skips a deployment at max_concurrency, benched or not', () => {
    for (const cooldown of [undefined, benched])
      expect(decideAvailability({ inFlight: 2, maxConcurrency: 2, cooldown, now: 0 })).toEqual({
        kind: 'skip',
        reason: 'AT_MAX_CONCURRENCY',
      });
  });

  it('skips a benched deployment until its cooldown ends, naming when and why', () => {
    const availability = decideAvailability({ inFlight: 0, maxConcurrency: 2, cooldown: benched, now: 1999 });
    expect(availability).toEqual({
      kind: 'skip',
      reason: `COOLING_DOWN until ${new Date(2000).toISOString()} after UPSTREAM_SERVER_ERROR`,
    });
  });

  it('offers the probe once the cooldown has ended', () => {
    expect(decideAvailability({ inFlight: 0, maxConcurrency: 2, cooldown: benched, now: 2000 })).toEqual({
      kind: 'probe',
    });
  });
});
