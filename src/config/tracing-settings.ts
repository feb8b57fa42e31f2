import type { Env } from './env.js';

export type SamplerName = NonNullable<Env['OTEL_TRACES_SAMPLER']>;

/** How spans are exported when tracing is on (from the OTEL_* variables, signal-specific ones first). */
export interface TracingSettings {
  /** The OTLP/HTTP traces URL. */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  /** Sent with every export; secrets (never logged). */
  headers: Readonly<Record<string, string>>;
  compression: 'gzip' | 'none';
  /** Longest wait for one export, ms. */
  timeoutMs: number;
  serviceName: string;
  resourceAttributes: Readonly<Record<string, string>>;
  sampler: SamplerName;
  /** The `*traceidratio` samplers' ratio, 0..1. */
  ratio: number;
}

/** The spec's default OTLP/HTTP endpoint (a collector on this host). */
const DEFAULT_ENDPOINT = 'http://localhost:4318';

function appendTracesPath(base: string): string {
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * The tracing settings, or undefined when tracing is off: off unless OTEL_EXPORTER_OTLP_ENDPOINT,
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_TRACES_EXPORTER=otlp is set, and always off with
 * OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none.
 */
export function toTracingSettings(env: Env): TracingSettings | undefined {
  if (env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return undefined;
  const tracesEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const baseEndpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (tracesEndpoint === undefined && baseEndpoint === undefined && env.OTEL_TRACES_EXPORTER !== 'otlp')
    return undefined;
  const { OTEL_RESOURCE_ATTRIBUTES: resourceAttributes = {} } = env;
  return {
    url: tracesEndpoint ?? appendTracesPath(baseEndpoint ?? DEFAULT_ENDPOINT),
    protocol: env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
    headers: { ...env.OTEL_EXPORTER_OTLP_HEADERS, ...env.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
    compression: env.OTEL_EXPORTER_OTLP_TRACES_COMPRESSION ?? env.OTEL_EXPORTER_OTLP_COMPRESSION ?? 'none',
    timeoutMs: env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT ?? 10_000,
    serviceName: env.OTEL_SERVICE_NAME ?? resourceAttributes['service.name'] ?? 'autotier',
    resourceAttributes,
    sampler: env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on',
    ratio: env.OTEL_TRACES_SAMPLER_ARG ?? 1,
  };
}
