export interface MemorySample {
  /** Seconds since the sampler started. */
  atSeconds: number;
  rssMb: number;
  heapUsedMb: number;
}

export interface MemorySampler {
  samples(): readonly MemorySample[];
  /** Time spent in the forced collections, ms: the event loop is blocked meanwhile. */
  gcPauseMs(): { total: number; max: number };
  stop(): void;
}

const MB = 1024 * 1024;

/** Samples RSS and heap every `intervalMs`, after a full garbage collection. */
export function startMemorySampler(options: { intervalMs: number; gc: () => void }): MemorySampler {
  const started = performance.now();
  const samples: MemorySample[] = [];
  const pauses = { total: 0, max: 0 };
  const sample = (): void => {
    const before = performance.now();
    options.gc();
    const pause = performance.now() - before;
    pauses.total += pause;
    pauses.max = Math.max(pauses.max, pause);
    const usage = process.memoryUsage();
    samples.push({
      atSeconds: (performance.now() - started) / 1000,
      rssMb: usage.rss / MB,
      heapUsedMb: usage.heapUsed / MB,
    });
  };
  sample();
  const timer = setInterval(sample, options.intervalMs);
  return { samples: () => samples, gcPauseMs: () => ({ ...pauses }), stop: () => clearInterval(timer) };
}

/** Least-squares slope of y over x, in y units per x unit; 0 with fewer than two points. */
export function toSlope(points: readonly { x: number; y: number }[]): number {
  if (points.length < 2) return 0;
  const meanX = points.reduce((sum, point) => sum + point.x, 0) / points.length;
  const meanY = points.reduce((sum, point) => sum + point.y, 0) / points.length;
  const covariance = points.reduce((sum, point) => sum + (point.x - meanX) * (point.y - meanY), 0);
  const variance = points.reduce((sum, point) => sum + (point.x - meanX) ** 2, 0);
  return variance === 0 ? 0 : covariance / variance;
}

/** MB per minute of `key` over the samples taken in the second half of the run (after warm-up). */
export function toSlopeMbPerMinute(
  samples: readonly MemorySample[],
  key: 'rssMb' | 'heapUsedMb',
  runSeconds: number,
): number {
  const late = samples.filter((sample) => sample.atSeconds >= runSeconds / 2);
  return toSlope(late.map((sample) => ({ x: sample.atSeconds / 60, y: sample[key] })));
}
