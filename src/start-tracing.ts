import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Env } from './config/env.js';
import { toTracingSettings } from './config/tracing-settings.js';
import type { OtelTracing } from './observe/otel-tracer.js';
import { PROJECT_ROOT } from './project-paths.js';
import type { Clock } from './shared/clock.js';
import type { Logger } from './shared/logger.js';

/** autotier's version from package.json, for `service.version`. */
async function readVersion(): Promise<string> {
  try {
    const text = await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8');
    const version = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * OpenTelemetry tracing when the OTEL_* variables ask for it (see config/tracing-settings.ts), else
 * undefined: the service then records nothing and passes a client's traceparent through.
 */
export async function startTracing(input: {
  env: Env;
  clock: Clock;
  logger: Logger;
  /** Batch export delay, ms. @default 5000 */
  scheduledDelayMs?: number;
}): Promise<OtelTracing | undefined> {
  const settings = toTracingSettings(input.env);
  if (settings === undefined) return undefined;
  // the OpenTelemetry SDK loads only when tracing is on (about 4 MiB of code)
  const { createOtelTracing } = await import('./observe/otel-tracer.js');
  const tracing = createOtelTracing({
    settings,
    clock: input.clock,
    logger: input.logger,
    version: await readVersion(),
    ...(input.scheduledDelayMs === undefined ? {} : { scheduledDelayMs: input.scheduledDelayMs }),
  });
  // the endpoint only: headers may hold a vendor's token
  input.logger.info('tracing on', {
    url: settings.url,
    protocol: settings.protocol,
    sampler: settings.sampler,
    service: settings.serviceName,
  });
  return tracing;
}
