import type { TimeoutsConfig } from '../config/table-part-schemas.js';
import type { AttemptLimits } from '../upstream/upstream.js';

/** One attempt's limits: the tier's connect and ttft timeouts, cut to what is left of the total. */
export function toAttemptLimits(
  timeouts: TimeoutsConfig,
  deadline: { at: number; now: number },
): AttemptLimits {
  const remaining = deadline.at - deadline.now;
  return {
    connectMs: Math.min(timeouts.connect_ms, remaining),
    ttftMs: Math.min(timeouts.ttft_ms, remaining),
    idleMs: timeouts.idle_ms,
    deadlineAt: deadline.at,
  };
}
