import { describe, expect, it } from 'vitest';
import { TEST_TIMEOUTS } from '../../test/helpers/balance-fixtures.js';
import { toAttemptLimits } from './to-attempt-limits.js';

describe('toAttemptLimits', () => {
  it("uses the tier's connect and ttft timeouts while the total leaves room", () => {
    expect(toAttemptLimits(TEST_TIMEOUTS, { at: 10_000, now: 6000 })).toEqual({
      connectMs: 300,
      ttftMs: 1200,
      idleMs: 900,
      deadlineAt: 10_000,
    });
  });

  it('cuts connect and ttft to what is left of total_ms; idle is timed against the deadline itself', () => {
    expect(toAttemptLimits(TEST_TIMEOUTS, { at: 10_000, now: 9800 })).toEqual({
      connectMs: 200,
      ttftMs: 200,
      idleMs: 900,
      deadlineAt: 10_000,
    });
  });
});
