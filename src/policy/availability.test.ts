import { describe, expect, it } from 'vitest';
import { availabilitySchema } from '../config/availability-schema.js';
import { createAvailabilityChecker } from './availability.js';

const checker = createAvailabilityChecker();
const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri'] as const;
const office = availabilitySchema.parse({
  timezone: 'Europe/Berlin',
  windows: [{ days: weekdays, start: '08:00', end: '20:00' }],
  holidays: ['2026-12-25'],
});
const at = (iso: string): number => Date.parse(iso);

describe('availability windows', () => {
  it('is open inside the window and closed at its end (end is exclusive)', () => {
    expect(checker.isAvailable(office, at('2026-11-30T07:00:00Z'))).toBe(true); // Monday 08:00 Berlin (UTC+1)
    expect(checker.isAvailable(office, at('2026-11-30T06:59:00Z'))).toBe(false);
    expect(checker.isAvailable(office, at('2026-11-30T18:59:00Z'))).toBe(true);
    expect(checker.isAvailable(office, at('2026-11-30T19:00:00Z'))).toBe(false);
  });

  it('is closed at 23:00 local time and on weekends', () => {
    expect(checker.isAvailable(office, at('2026-12-01T22:00:00Z'))).toBe(false);
    expect(checker.isAvailable(office, at('2026-11-29T12:00:00Z'))).toBe(false); // Sunday
  });

  it('is closed all day on a holiday', () => {
    expect(checker.isAvailable(office, at('2026-12-25T10:00:00Z'))).toBe(false); // a Friday
  });

  it('follows the local clock across a DST change', () => {
    // Berlin switches to UTC+2 on 2026-03-29: 08:00 local is 06:00 UTC the next Monday.
    expect(checker.isAvailable(office, at('2026-03-30T06:00:00Z'))).toBe(true);
    expect(checker.isAvailable(office, at('2026-03-27T06:00:00Z'))).toBe(false); // Friday before: 07:00 local
    // and back to UTC+1 on 2026-10-25
    expect(checker.isAvailable(office, at('2026-10-26T06:30:00Z'))).toBe(false);
    expect(checker.isAvailable(office, at('2026-10-26T07:00:00Z'))).toBe(true);
  });

  it('reads the same instant differently in other time zones', () => {
    const tokyo = { ...office, timezone: 'Asia/Tokyo', holidays: [] };
    const newYork = { ...office, timezone: 'America/New_York', holidays: [] };
    const instant = at('2026-12-01T02:00:00Z'); // Tue 11:00 Tokyo, Mon 21:00 New York
    expect(checker.isAvailable(tokyo, instant)).toBe(true);
    expect(checker.isAvailable(newYork, instant)).toBe(false);
  });

  it('runs a window past midnight into the next day', () => {
    const night = availabilitySchema.parse({
      timezone: 'UTC',
      windows: [{ days: ['fri'], start: '22:00', end: '02:00' }],
    });
    expect(checker.isAvailable(night, at('2026-12-04T23:00:00Z'))).toBe(true); // Friday 23:00
    expect(checker.isAvailable(night, at('2026-12-05T01:59:00Z'))).toBe(true); // Saturday 01:59
    expect(checker.isAvailable(night, at('2026-12-05T02:00:00Z'))).toBe(false);
    expect(checker.isAvailable(night, at('2026-12-04T01:00:00Z'))).toBe(false); // Friday 01:00: Thursday was not open
  });

  it('accepts 24:00 as the end of the day', () => {
    const late = availabilitySchema.parse({
      timezone: 'UTC',
      windows: [{ days: ['mon'], start: '12:00', end: '24:00' }],
    });
    expect(checker.isAvailable(late, at('2026-11-30T23:59:00Z'))).toBe(true);
    expect(checker.isAvailable(late, at('2026-12-01T00:00:00Z'))).toBe(false);
  });

  it('rejects an unknown time zone and a malformed time', () => {
    expect(
      availabilitySchema.safeParse({
        timezone: 'Mars/Olympus',
        windows: [{ days: ['mon'], start: '08:00', end: '20:00' }],
      }).success,
    ).toBe(false);
    expect(
      availabilitySchema.safeParse({
        timezone: 'UTC',
        windows: [{ days: ['mon'], start: '8am', end: '20:00' }],
      }).success,
    ).toBe(false);
  });
});
