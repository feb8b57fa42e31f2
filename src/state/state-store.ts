/** Why and until when a deployment is benched. */
export interface CooldownRecord {
  /** Epoch ms when the deployment may be probed again. */
  until: number;
  /** Error code that benched it. */
  reason: string;
  /** Consecutive failures, including failed probes; doubles the next cooldown. */
  failures: number;
}

/**
 * Shared routing state. The memory implementation serves one process; the Redis one lets many
 * router instances agree. Every method is safe to call concurrently.
 */
export interface StateStore {
  getCooldowns(ids: readonly string[]): Promise<ReadonlyMap<string, CooldownRecord>>;
  /** Sets a cooldown; when one exists, the later `until` wins and failures keep counting. */
  setCooldown(id: string, record: CooldownRecord): Promise<void>;
  clearCooldown(id: string): Promise<void>;
  /** Half-open probe ownership: true for exactly one caller until `ttlMs` passes or it is released. */
  acquireProbe(id: string, ttlMs: number): Promise<boolean>;
  releaseProbe(id: string): Promise<void>;
  /**
   * Adds `delta` to this process's in-flight count of a deployment (never below 0). On Redis each
   * instance's count is a lease that stops counting when the instance stops renewing it.
   */
  addInFlight(id: string, delta: number): Promise<void>;
  getInFlight(ids: readonly string[]): Promise<ReadonlyMap<string, number>>;
  /** Folds a time-to-first-token sample (ms) into the deployment's EWMA. */
  recordLatency(sample: { id: string; milliseconds: number; alpha: number }): Promise<void>;
  getLatencies(ids: readonly string[]): Promise<ReadonlyMap<string, number>>;
  /** Highest tier rank a session used within its window, or undefined. */
  getSessionTier(key: string): Promise<number | undefined>;
  /** Raises a session's tier rank to at least `rank` and (re)starts its window of `ttlMs`. */
  raiseSessionTier(session: { key: string; rank: number; ttlMs: number }): Promise<void>;
  /**
   * Sliding-window counter (RPM, TPM): adds `amount` when the window's total stays within `limit`
   * (always when `enforce` is false, e.g. completion tokens known only afterwards).
   */
  consumeWindow(request: WindowRequest): Promise<WindowDecision>;
  /** Fixed-period counter (requests per day, token budgets per day or month) keyed by `period`. */
  consumePeriod(request: PeriodRequest): Promise<WindowDecision>;
  /**
   * Takes one of `limit` slots (concurrent streams); false when all are taken. A slot is held until
   * released, or on Redis until its instance's lease lapses; `ttlMs` (the request's total time) is
   * not needed for that and is ignored.
   */
  acquireSlot(request: { key: string; limit: number; ttlMs: number }): Promise<boolean>;
  releaseSlot(key: string): Promise<void>;
  close(): Promise<void>;
}

export interface WindowRequest {
  key: string;
  amount: number;
  limit: number;
  /** Window length, ms; counted in 60 buckets, so a 60 s window is precise to 1 s. */
  windowMs: number;
  enforce: boolean;
  /**
   * Epoch ms whose bucket receives the amount, for settling an earlier reservation (a negative amount
   * returns unused tokens to the bucket that holds them). Dropped when that bucket has left the
   * window. @default now
   */
  bookAt?: number | undefined;
}

export interface PeriodRequest {
  key: string;
  /** Id of the current period (e.g. `2026-11-29` in the quota's time zone); a new id starts at 0. */
  period: string;
  amount: number;
  limit: number;
  /** How long the period's counter is kept, ms (longer than the period). */
  ttlMs: number;
  enforce: boolean;
}

export interface WindowDecision {
  allowed: boolean;
  /** Total in the window or period after this call. */
  total: number;
  /** When denied: ms until enough of the window has passed to allow `amount`. */
  retryAfterMs: number;
}

/** Buckets per sliding window. */
export const WINDOW_BUCKETS = 60;
