import type { LogFields, Logger } from './logger.js';
import { maskSecrets } from './redact.js';

/** Nesting of log fields masked, levels: deeper values are logged as `[nested]`. */
const MAX_DEPTH = 4;

/** A logger that masks credentials in what it was given (see isRedacting). */
export interface RedactingLogger extends Logger {
  readonly redacts: true;
}

export function isRedacting(logger: Logger): logger is RedactingLogger {
  return (logger as Partial<RedactingLogger>).redacts === true;
}

function toMasked(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return maskSecrets(value);
  if (value instanceof Error) return maskSecrets(String(value));
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return '[nested]';
  if (Array.isArray(value)) return value.map((item) => toMasked(item, depth + 1));
  const masked: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) masked[key] = toMasked(item, depth + 1);
  return masked;
}

/**
 * Masks credentials (maskSecrets) in every line's message and fields, strings at any depth up to 4,
 * before `logger` sees them: one place for every log line, whoever wrote it. Wrapping twice is a no-op.
 */
export function createRedactingLogger(logger: Logger): RedactingLogger {
  if (isRedacting(logger)) return logger;
  const at =
    (level: 'error' | 'warn' | 'info' | 'debug') =>
    (message: string, fields?: LogFields): void => {
      logger[level](
        maskSecrets(message),
        fields === undefined ? undefined : (toMasked(fields, 0) as LogFields),
      );
    };
  return { redacts: true, error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}
