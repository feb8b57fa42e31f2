import { createZonedParts } from '../shared/zoned-parts.js';
import { WEEKDAYS, type Availability, type Weekday } from '../config/availability-schema.js';
import { TABLE_TIERS, type TableTier } from '../config/table-part-schemas.js';
import type { RoutingTable } from '../config/routing-table-schema.js';

interface LocalTime {
  weekday: number;
  /** Minutes since local midnight. */
  minutes: number;
  date: string;
}

function toMinutes(time: string): number {
  const [hours, minutes] = time.split(':').map(Number);
  return (hours ?? 0) * 60 + (minutes ?? 0);
}

/** Checks instants against availability windows; keeps one Intl formatter per time zone. */
export interface AvailabilityChecker {
  isAvailable(availability: Availability, epochMs: number): boolean;
}

export function createAvailabilityChecker(): AvailabilityChecker {
  const zonedParts = createZonedParts();
  const toLocal = (timeZone: string, epochMs: number): LocalTime => {
    const parts = zonedParts(timeZone, epochMs);
    const weekday = WEEKDAYS.indexOf((parts['weekday'] ?? '').toLowerCase().slice(0, 3) as Weekday);
    return {
      weekday,
      minutes: Number(parts['hour']) * 60 + Number(parts['minute']),
      date: `${parts['year']}-${parts['month']}-${parts['day']}`,
    };
  };
  return {
    isAvailable(availability, epochMs) {
      const local = toLocal(availability.timezone, epochMs);
      if (availability.holidays.includes(local.date)) return false;
      const today = WEEKDAYS[local.weekday];
      const yesterday = WEEKDAYS[(local.weekday + 6) % 7];
      return availability.windows.some((window) => {
        const start = toMinutes(window.start);
        const end = toMinutes(window.end);
        if (start < end)
          return (
            today !== undefined &&
            window.days.includes(today) &&
            local.minutes >= start &&
            local.minutes < end
          );
        const lateToday = today !== undefined && window.days.includes(today) && local.minutes >= start;
        const earlyTomorrow =
          yesterday !== undefined && window.days.includes(yesterday) && local.minutes < end;
        return lateToday || earlyTomorrow;
      });
    },
  };
}

export interface AvailabilityState {
  /** Deployments outside their windows, with a reason for the explain output. */
  unavailable: Map<string, string>;
  /** Tiers outside their windows. */
  offHours: Set<TableTier>;
}

/** Which deployments and tiers are outside their availability windows at `now`. */
export function toAvailabilityState(input: {
  table: RoutingTable;
  checker: AvailabilityChecker;
  now: number;
}): AvailabilityState {
  const unavailable = new Map<string, string>();
  for (const deployment of input.table.deployments) {
    if (
      deployment.availability !== undefined &&
      !input.checker.isAvailable(deployment.availability, input.now)
    ) {
      unavailable.set(
        deployment.id,
        `is outside its availability window (${deployment.availability.timezone})`,
      );
    }
  }
  const offHours = new Set<TableTier>();
  for (const name of TABLE_TIERS) {
    const tier = input.table.tiers[name];
    if (
      tier?.availability !== undefined &&
      tier.off_hours !== undefined &&
      !input.checker.isAvailable(tier.availability, input.now)
    )
      offHours.add(name);
  }
  return { unavailable, offHours };
}
