/** Calendar parts of an instant in a time zone: year, month, day, hour, minute, weekday (strings). */
export type ZonedParts = (timeZone: string, epochMs: number) => Record<string, string>;

/** One Intl formatter per time zone, built on first use (they are costly to create). */
export function createZonedParts(): ZonedParts {
  const formatters = new Map<string, Intl.DateTimeFormat>();
  return (timeZone, epochMs) => {
    let formatter = formatters.get(timeZone);
    if (formatter === undefined) {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        weekday: 'short',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
      });
      formatters.set(timeZone, formatter);
    }
    return Object.fromEntries(formatter.formatToParts(epochMs).map((part) => [part.type, part.value]));
  };
}
