import { describe, expect, it } from 'vitest';
import type { StreamResult } from './load.js';
import { pool } from './measure-streams.js';

function run(ttfcMs: number[], gapsMs: number[], failed = 0): StreamResult {
  return {
    kind: 'stream',
    streams: ttfcMs.length + failed,
    completed: ttfcMs.length,
    non2xx: failed,
    errors: 0,
    ttfcP50Ms: 0,
    ttfcP99Ms: 0,
    gapP50Ms: 0,
    gapP99Ms: 0,
    gapMaxMs: 0,
    durationP50Ms: 0,
    durationP99Ms: 0,
    stallThresholdMs: 250,
    stalledStreams: 0,
    minContentChunks: 0,
    maxContentChunks: 0,
    samples: { ttfcMs, gapsMs },
  };
}

describe('pool', () => {
  it('takes percentiles over every run together, not the median of per-run maxima', () => {
    // Each run has one slow first chunk; the pooled p99 of 300 samples is the 297th, not a maximum.
    const runs = [0, 1, 2].map((index) =>
      run([...Array.from({ length: 99 }, () => 1), 50 + index], [20, 20, 21], index === 2 ? 1 : 0),
    );
    const pooled = pool(runs);
    expect(pooled.ttftP50Ms).toBe(1);
    expect(pooled.ttftP99Ms).toBe(1);
    expect(pooled.gapP50Ms).toBe(20);
    expect(pooled.gapMaxMs).toBe(21);
    expect(pooled).toMatchObject({ streams: 301, completed: 300, failed: 1 });
  });

  it('is zero for runs without samples', () => {
    const { samples: _unused, ...bare } = run([], []);
    expect(pool([bare]).ttftP99Ms).toBe(0);
  });
});
