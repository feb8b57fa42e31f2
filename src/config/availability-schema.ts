import { z } from 'zod';

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

const clockTime = z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'a time as HH:MM (00:00 to 24:00)');

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export const availabilitySchema = z
  .object({
    /** IANA time zone of the windows and holidays, e.g. Europe/Berlin. */
    timezone: z.string().refine(isTimeZone, 'an IANA time zone such as Europe/Berlin'),
    /** Open windows; a window whose end is not after its start runs past midnight into the next day. */
    windows: z
      .array(z.object({ days: z.array(z.enum(WEEKDAYS)).min(1), start: clockTime, end: clockTime }).strict())
      .min(1),
    /** Local dates (YYYY-MM-DD) with no availability at all. */
    holidays: z.array(z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD')).default([]),
  })
  .strict();

export type Availability = z.infer<typeof availabilitySchema>;
