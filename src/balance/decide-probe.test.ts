import { describe, expect, it } from 'vitest';
import { decideProbe } from './decide-probe.js';

const settings = { first_interval_ms: 1000, max_interval_ms: 10_000 };
const benched = (failures: number, reason = 'UPSTREAM_SERVER_ERROR') => ({ until: 0, reason, failures });

describe('decideProbe', () => {
  it('probes a benched deployment with slots of 1, 2, 4, 8, then 10 s per consecutive failure', () => {
    const slots = [1, 2, 3, 4, 5, 6, 40].map((failures) => {
      const plan = decideProbe({ cooldown: benched(failures), kind: 'health', settings });
      return plan.probe ? plan.slotMs : undefined;
    });
    expect(slots).toEqual([1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]);
  });

  it('leaves a deployment that is not benched alone', () => {
    expect(decideProbe({ cooldown: undefined, kind: 'health', settings })).toEqual({ probe: false });
  });

  it('leaves a rate-limited deployment to its Retry-After, whatever the probe kind', () => {
    for (const kind of ['health', 'models', 'chat'] as const)
      expect(decideProbe({ cooldown: benched(1, 'UPSTREAM_RATE_LIMITED'), kind, settings }).probe).toBe(
        false,
      );
  });

  it('probes a slow deployment (first-token or idle timeout) only with a chat probe', () => {
    for (const reason of ['UPSTREAM_TTFT_TIMEOUT', 'UPSTREAM_IDLE_TIMEOUT']) {
      expect(decideProbe({ cooldown: benched(1, reason), kind: 'health', settings }).probe).toBe(false);
      expect(decideProbe({ cooldown: benched(1, reason), kind: 'models', settings }).probe).toBe(false);
      expect(decideProbe({ cooldown: benched(1, reason), kind: 'chat', settings }).probe).toBe(true);
    }
  });

  it('probes a server that errored, refused, stayed silent or cut a stream with every kind', () => {
    const reasons = [
      'UPSTREAM_SERVER_ERROR',
      'UPSTREAM_CONNECT_FAILED',
      'UPSTREAM_CONNECT_TIMEOUT',
      'UPSTREAM_STREAM_CUT',
    ];
    for (const reason of reasons)
      for (const kind of ['health', 'models', 'chat'] as const)
        expect(decideProbe({ cooldown: benched(1, reason), kind, settings }).probe).toBe(true);
  });

  it('never probes a deployment whose kind is none', () => {
    expect(decideProbe({ cooldown: benched(3), kind: 'none', settings }).probe).toBe(false);
  });

  it('reads a record without failures (0) like one failure', () => {
    expect(decideProbe({ cooldown: benched(0), kind: 'health', settings })).toEqual({
      probe: true,
      slotMs: 1000,
    });
  });
});
