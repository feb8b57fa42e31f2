import { createZonedParts } from './zoned-parts.js';

export interface PeriodInput {
  timezone: string;
  /** Local time the period starts, HH:MM. @default 00:00 */
  reset?: string;
  kind: 'day' | 'month';
  now: number;
}

/** Local calendar parts of an instant, one formatter per time zone. */
export interface PeriodClock {
  toPeriodId(input: PeriodInput): string;
  /** Milliseconds until the next period starts (for Retry-After), at most a day off for months. */
  msUntilNextPeriod(input: PeriodInput): number;
}

export function createPeriodClock(): PeriodClock {
  const toParts = createZonedParts();
  const resetMs = (reset: string | undefined): number => {
    const [hours, minutes] = (reset ?? '00:00').split(':').map(Number);
    return ((hours ?? 0) * 60 + (minutes ?? 0)) * 60_000;
  };
  /** The period an instant belongs to: a local day (or month) that starts at the reset time. */
  const toPeriodId = (input: PeriodInput): string => {
    const parts = toParts(input.timezone, input.now - resetMs(input.reset));
    return input.kind === 'day'
      ? `${parts['year']}-${parts['month']}-${parts['day']}`
      : `${parts['year']}-${parts['month']}`;
  };
  return {
    toPeriodId,
    msUntilNextPeriod(input) {
      const current = toPeriodId(input);
      const step = input.kind === 'day' ? 60_000 : 3_600_000;
      let probe = input.now;
      // walk forward coarsely, then finely: at most ~1500 steps for a day, ~750 for a month
      const coarse = input.kind === 'day' ? 3_600_000 : 86_400_000;
      while (toPeriodId({ ...input, now: probe + coarse }) === current) probe += coarse;
      while (toPeriodId({ ...input, now: probe + step }) === current) probe += step;
      return probe + step - input.now;
    },
  };
}
