import winston from 'winston';
import type { Logger } from './logger.js';

/** JSON lines on stdout, one object per event. */
export function createWinstonLogger(options: { level: string }): Logger {
  return winston.createLogger({
    level: options.level,
    format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
    transports: [new winston.transports.Console()],
  });
}
