/** Sizes of one bench run; `--quick` trades precision for about a minute of wall time. */
export interface BenchSettings {
  /** Divides the iteration counts of the in-process cost measurements. */
  costScale: number;
  overhead: { rounds: number; requests: number; warmup: number; maxDurationSeconds: number };
  realistic: { requests: number; warmup: number; maxDurationSeconds: number };
  frontier: {
    startRate: number;
    maxRate: number;
    minRate: number;
    durationSeconds: number;
    bisectSteps: number;
  };
  /** Whether `--workers 2` is started and its frontier searched. */
  workers2: boolean;
  /** Paced streams per run, started this far apart, in rounds interleaved over the routes. */
  streamLatency: { streams: number; startIntervalMs: number; rounds: number };
  streamLevels: readonly number[];
  /** Whether a failed ladder level is run a second time (the better run kept). */
  retryFailedLevel: boolean;
  /** Whether the CPU profile runs unless --profile / --no-profile say otherwise. */
  profileByDefault: boolean;
  profile: { durationSeconds: number; streams: number };
  /** Pause before the idle RSS reading, in milliseconds. */
  settleMs: number;
  /**
   * Pause after the load before the after-load RSS reading, ms: past autotier's quiet spell
   * (AUTOTIER_RELEASE_MEMORY_AFTER_MS, 30 s by default), after which it hands memory back.
   */
  afterLoadMs: number;
  /** Measured requests per 1 MB body of the abuse section (and its normal-traffic baseline). */
  abuseRequests: number;
}

export const FULL_SETTINGS: BenchSettings = {
  costScale: 1,
  overhead: { rounds: 3, requests: 1000, warmup: 200, maxDurationSeconds: 3 },
  realistic: { requests: 40, warmup: 5, maxDurationSeconds: 6 },
  frontier: { startRate: 250, maxRate: 16_000, minRate: 25, durationSeconds: 2, bisectSteps: 2 },
  workers2: true,
  streamLatency: { streams: 80, startIntervalMs: 60, rounds: 3 },
  streamLevels: [100, 250, 500],
  retryFailedLevel: true,
  profileByDefault: true,
  profile: { durationSeconds: 3, streams: 250 },
  settleMs: 3000,
  afterLoadMs: 35_000,
  abuseRequests: 20,
};

export const QUICK_SETTINGS: BenchSettings = {
  costScale: 4,
  overhead: { rounds: 1, requests: 300, warmup: 100, maxDurationSeconds: 1.5 },
  realistic: { requests: 10, warmup: 3, maxDurationSeconds: 2 },
  frontier: { startRate: 250, maxRate: 16_000, minRate: 60, durationSeconds: 1, bisectSteps: 0 },
  workers2: false,
  streamLatency: { streams: 24, startIntervalMs: 50, rounds: 1 },
  streamLevels: [500],
  retryFailedLevel: false,
  profileByDefault: false,
  profile: { durationSeconds: 1, streams: 100 },
  settleMs: 1500,
  afterLoadMs: 35_000,
  abuseRequests: 4,
};
