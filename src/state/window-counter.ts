import { WINDOW_BUCKETS, type WindowDecision } from './state-store.js';

/** Bucket sums of one sliding window: bucket index (time / bucket length) -> amount. */
export type WindowBuckets = Map<number, number>;

export interface WindowStep {
  buckets: WindowBuckets;
  amount: number;
  limit: number;
  windowMs: number;
  enforce: boolean;
  now: number;
  /** Epoch ms whose bucket receives the amount (see WindowRequest.bookAt). @default now */
  bookAt?: number | undefined;
}

/**
 * One increment-and-check on a sliding window kept as 60 buckets (the memory store's version of the
 * Redis Lua script). Drops expired buckets; when denied, says how long until enough of them expire.
 */
export function stepWindow(step: WindowStep): WindowDecision {
  const bucketMs = step.windowMs / WINDOW_BUCKETS;
  const current = Math.floor(step.now / bucketMs);
  let total = 0;
  for (const [index, value] of step.buckets) {
    if (index <= current - WINDOW_BUCKETS) step.buckets.delete(index);
    else total += value;
  }
  if (step.enforce && total + step.amount > step.limit) {
    return { allowed: false, total, retryAfterMs: toRetryAfterMs({ ...step, total, bucketMs }) };
  }
  const target = step.bookAt === undefined ? current : Math.floor(step.bookAt / bucketMs);
  if (target <= current - WINDOW_BUCKETS) return { allowed: true, total, retryAfterMs: 0 };
  step.buckets.set(target, (step.buckets.get(target) ?? 0) + step.amount);
  return { allowed: true, total: total + step.amount, retryAfterMs: 0 };
}

function toRetryAfterMs(step: WindowStep & { total: number; bucketMs: number }): number {
  if (step.amount > step.limit) return step.windowMs;
  let remaining = step.total;
  const ordered = [...step.buckets.entries()].sort((a, b) => a[0] - b[0]);
  for (const [index, value] of ordered) {
    remaining -= value;
    if (remaining + step.amount <= step.limit)
      return Math.max(1, Math.ceil((index + WINDOW_BUCKETS) * step.bucketMs - step.now));
  }
  return step.windowMs;
}
