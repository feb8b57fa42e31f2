import { z } from 'zod';
import { otelEnvShape } from './otel-env.js';

/** Environment variables autotier reads, validated once at start. */
export const envSchema = z.object({
  AUTOTIER_PORT: z.coerce.number().int().min(0).max(65_535).default(4000),
  /**
   * The address to listen on. @default 0.0.0.0 with API keys, 127.0.0.1 without (listen-host.ts); an
   * explicit non-loopback host with a keyless table and no AUTOTIER_OPEN refuses to start.
   */
  AUTOTIER_HOST: z.string().min(1).optional(),
  /** 1 (or true): serve a table without API keys beyond loopback (same as --open). @default 0 */
  AUTOTIER_OPEN: z
    .enum(['0', '1', 'true', 'false'])
    .default('0')
    .transform((value) => value === '1' || value === 'true'),
  AUTOTIER_ROUTING_TABLE: z.string().default('routing-tables/default.yaml'),
  AUTOTIER_LOG_LEVEL: z.enum(['error', 'warn', 'info', 'debug']).default('info'),
  AUTOTIER_REDIS_URL: z.string().optional(),
  /** A Redis command slower than this counts as a Redis failure (served on local state), ms. */
  AUTOTIER_REDIS_TIMEOUT_MS: z.coerce.number().int().positive().default(1000),
  AUTOTIER_WORKERS: z.coerce.number().int().min(1).max(64).default(1),
  /** Threads per process that count long prompts (0 = none). @default min(4, available cores) */
  AUTOTIER_COUNT_THREADS: z.coerce.number().int().min(0).max(64).optional(),
  /**
   * On SIGTERM or SIGINT, how long requests in flight may take to finish before they are stopped with
   * SHUTTING_DOWN (new requests are refused from the first moment), ms; 0 stops them at once. Keep
   * Kubernetes' terminationGracePeriodSeconds a few seconds above it. @default 30000
   */
  AUTOTIER_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  /**
   * After this long without a request (none started, none in flight), the process runs one full
   * garbage collection, after which V8 hands what the busy spell grew back to the system
   * (docs/memory.md), ms; 0 never does. @default 30000
   */
  AUTOTIER_RELEASE_MEMORY_AFTER_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  /** OpenTelemetry tracing: the standard OTEL_* variables (see otel-env.ts). */
  ...otelEnvShape,
});

export type Env = z.infer<typeof envSchema>;

export function parseEnv(source: Readonly<Record<string, string | undefined>>): Env {
  const result = envSchema.safeParse(source);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
  throw new Error(`invalid environment:\n${lines.join('\n')}`);
}
