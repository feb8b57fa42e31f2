import type { Logger } from '../../src/shared/logger.js';

/** A logger that keeps only a count per level and message, so a long soak does not grow with it. */
export interface CountingLogger extends Logger {
  counts(): Record<string, number>;
}

export function createCountingLogger(): CountingLogger {
  const counts = new Map<string, number>();
  const count =
    (level: string) =>
    (message: string): void => {
      const key = `${level}: ${message}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    };
  return {
    error: count('error'),
    warn: count('warn'),
    info: count('info'),
    debug: count('debug'),
    counts: () => Object.fromEntries(counts),
  };
}
