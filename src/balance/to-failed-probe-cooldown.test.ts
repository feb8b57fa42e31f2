import { describe, expect, it } from 'vitest';
import { toFailedProbeCooldown } from './to-failed-probe-cooldown.js';

const cooldown = { until: 5000, reason: 'UPSTREAM_CONNECT_FAILED', failures: 2 };

describe('toFailedProbeCooldown', () => {
  it('counts one more failure and benches past the end of the next probe, keeping the reason', () => {
    expect(toFailedProbeCooldown({ cooldown, nextProbeAt: 4000, now: 2050, probeMs: 2250 })).toEqual({
      until: 6250,
      reason: 'UPSTREAM_CONNECT_FAILED',
      failures: 3,
    });
  });

  it('counts from now when the probe itself outlasted its slot', () => {
    expect(toFailedProbeCooldown({ cooldown, nextProbeAt: 4000, now: 4500, probeMs: 2250 }).until).toBe(6750);
  });
});
