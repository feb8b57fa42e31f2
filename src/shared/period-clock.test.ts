import { describe, expect, it } from 'vitest';
import { createPeriodClock } from './period-clock.js';

const periods = createPeriodClock();

describe('quota periods', () => {
  it('starts a new day at the reset time in the quota time zone', () => {
    const base = { timezone: 'America/Los_Angeles', reset: '00:00', kind: 'day' as const };
    expect(periods.toPeriodId({ ...base, now: Date.parse('2026-11-30T07:59:00Z') })).toBe('2026-11-29');
    expect(periods.toPeriodId({ ...base, now: Date.parse('2026-11-30T08:00:00Z') })).toBe('2026-11-30');
  });

  it('honors a reset time other than midnight', () => {
    const base = { timezone: 'UTC', reset: '09:30', kind: 'day' as const };
    expect(periods.toPeriodId({ ...base, now: Date.parse('2026-11-30T09:29:00Z') })).toBe('2026-11-29');
    expect(periods.toPeriodId({ ...base, now: Date.parse('2026-11-30T09:30:00Z') })).toBe('2026-11-30');
  });

  it('counts months for monthly budgets', () => {
    expect(
      periods.toPeriodId({ timezone: 'Asia/Seoul', kind: 'month', now: Date.parse('2026-11-30T15:00:00Z') }),
    ).toBe('2026-12');
  });

  it('tells how long until the next period', () => {
    const wait = periods.msUntilNextPeriod({
      timezone: 'UTC',
      kind: 'day',
      now: Date.parse('2026-11-30T23:00:00Z'),
    });
    expect(wait).toBe(3_600_000);
  });
});
