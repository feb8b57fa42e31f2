import { z } from 'zod';

/**
 * The standard OpenTelemetry variables autotier reads, from the SDK environment spec
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/). Tracing is off
 * unless an OTLP endpoint is set or OTEL_TRACES_EXPORTER=otlp; only the OTLP/HTTP exporter is built in.
 */

/** One `key=value` pair of a W3C-baggage-style list (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES). */
const HEADER_KEY = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Longest list read, in characters: config, but bounded like everything else. */
const MAX_LIST_CHARS = 8192;

/**
 * `k1=v1,k2=v2` with percent-encoded values, into a record. Issues never repeat a value: header values
 * are credentials (an API token for a tracing vendor).
 */
function keyValueList(what: string) {
  return z
    .string()
    .max(MAX_LIST_CHARS)
    .transform((text, context) => {
      const pairs: Record<string, string> = {};
      for (const [index, item] of text.split(',').entries()) {
        if (item.trim() === '') continue;
        const equals = item.indexOf('=');
        const key = equals === -1 ? '' : item.slice(0, equals).trim();
        let value: string | undefined;
        try {
          value = equals === -1 ? undefined : decodeURIComponent(item.slice(equals + 1).trim());
        } catch {
          value = undefined;
        }
        if (!HEADER_KEY.test(key) || value === undefined) {
          context.addIssue({
            code: 'custom',
            message: `item ${index + 1} is not ${what} key=value (percent-encoded value)`,
          });
          return z.NEVER;
        }
        pairs[key] = value;
      }
      return pairs;
    });
}

const endpoint = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });
const protocol = z.enum(['http/protobuf', 'http/json'], {
  error: 'must be http/protobuf or http/json (grpc is not built in)',
});
const compression = z.enum(['gzip', 'none']);
/** Timeout of one export, ms (spec default 10000). */
const timeout = z.coerce.number().int().positive().max(600_000);

export const otelEnvShape = {
  /** `true` turns the SDK off whatever else is set (case-insensitive). @default false */
  OTEL_SDK_DISABLED: z
    .string()
    .transform((value) => value.trim().toLowerCase())
    .pipe(z.enum(['true', 'false', ''], { error: 'must be true or false' }))
    .optional(),
  /** `otlp` turns tracing on (to http://localhost:4318 without an endpoint); `none` keeps it off. */
  OTEL_TRACES_EXPORTER: z
    .enum(['otlp', 'none'], { error: 'must be otlp or none (no other exporter is built in)' })
    .optional(),
  /** Base URL; traces go to `<endpoint>/v1/traces`. Setting it turns tracing on. */
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint.optional(),
  /** The full traces URL, used as is; wins over OTEL_EXPORTER_OTLP_ENDPOINT. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint.optional(),
  /** Headers on every export (e.g. a vendor's token): `k1=v1,k2=v2`, values percent-encoded. */
  OTEL_EXPORTER_OTLP_HEADERS: keyValueList('a header').optional(),
  /** Headers on trace exports; merged over OTEL_EXPORTER_OTLP_HEADERS. */
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: keyValueList('a header').optional(),
  /** @default http/protobuf */
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol.optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol.optional(),
  /** @default none */
  OTEL_EXPORTER_OTLP_COMPRESSION: compression.optional(),
  OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: compression.optional(),
  /** Longest wait for one export, ms. @default 10000 */
  OTEL_EXPORTER_OTLP_TIMEOUT: timeout.optional(),
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: timeout.optional(),
  /** `service.name` of every span. @default autotier */
  OTEL_SERVICE_NAME: z.string().trim().min(1).max(256).optional(),
  /** More resource attributes: `k1=v1,k2=v2`, values percent-encoded. */
  OTEL_RESOURCE_ATTRIBUTES: keyValueList('an attribute').optional(),
  /** Which traces are recorded. @default parentbased_always_on */
  OTEL_TRACES_SAMPLER: z
    .enum(
      [
        'always_on',
        'always_off',
        'traceidratio',
        'parentbased_always_on',
        'parentbased_always_off',
        'parentbased_traceidratio',
      ],
      { error: 'must be always_on, always_off, traceidratio or parentbased_* of those' },
    )
    .optional(),
  /** The ratio of the `*traceidratio` samplers, 0..1. @default 1 */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
};
