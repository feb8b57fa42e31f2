import { describe, expect, it } from 'vitest';
import { decideAfterProbe, type AfterProbeInput } from './decide-after-probe.js';

const base: AfterProbeInput = {
  healthy: false,
  cooldown: { until: 5000, reason: 'UPSTREAM_SERVER_ERROR', failures: 2 },
  seenDown: false,
  nextProbeAt: 4000,
  now: 2050,
  probeMs: 2250,
};

describe('decideAfterProbe', () => {
  it('benches a deployment whose probe failed past the end of its next probe, one failure more, same reason', () => {
    expect(decideAfterProbe(base)).toEqual({
      action: 'bench',
      cooldown: { until: 6250, reason: 'UPSTREAM_SERVER_ERROR', failures: 3 },
    });
  });

  it('counts from now when the failed probe itself outlasted its slot', () => {
    const after = decideAfterProbe({ ...base, now: 4500 });
    expect(after.action === 'bench' && after.cooldown.until).toBe(6750);
  });

  it('puts it back in service when a probe saw it down and now finds it healthy', () => {
    expect(decideAfterProbe({ ...base, healthy: true, seenDown: true })).toEqual({ action: 'clear' });
  });

  it('puts it back in service when it was benched for refused connections and now answers', () => {
    const refused = { until: 5000, reason: 'UPSTREAM_CONNECT_FAILED', failures: 1 };
    expect(decideAfterProbe({ ...base, healthy: true, cooldown: refused })).toEqual({ action: 'clear' });
  });

  it('keeps the cooldown when /health answered all along while its requests failed (flapping)', () => {
    expect(decideAfterProbe({ ...base, healthy: true, seenDown: false })).toEqual({ action: 'keep' });
  });
});
