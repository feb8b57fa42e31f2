import winston from 'winston';
import type { LogFields, Logger } from '../shared/logger.js';

/**
 * JSON lines on stdout, one object per event. Disabled levels return before winston builds anything
 * (winston formats a line even when its transport will drop it).
 */
export function createWinstonLogger(options: { level: string }): Logger {
  const logger = winston.createLogger({
    level: options.level,
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.Console()],
  });
  const at =
    (level: 'error' | 'warn' | 'info' | 'debug') =>
    (message: string, fields?: LogFields): void => {
      if (logger.isLevelEnabled(level)) logger.log(level, message, fields ?? {});
    };
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}
