/** The logging surface the core uses; winston fits it, and tests pass a recording one. */
export type LogFields = Record<string, unknown>;

export interface Logger {
  error(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
}

export const silentLogger: Logger = {
  error: () => undefined,
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
};

export interface RecordedLine {
  level: 'error' | 'warn' | 'info' | 'debug';
  message: string;
  fields: LogFields;
}

/** A logger that keeps every line in memory, for tests. */
export function createRecordingLogger(): Logger & { lines: RecordedLine[] } {
  const lines: RecordedLine[] = [];
  const record =
    (level: RecordedLine['level']) =>
    (message: string, fields: LogFields = {}): void => {
      lines.push({ level, message, fields });
    };
  return {
    lines,
    error: record('error'),
    warn: record('warn'),
    info: record('info'),
    debug: record('debug'),
  };
}
