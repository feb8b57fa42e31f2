import {
  createTraceState,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span as OtelSpan,
  type Tracer as OtelTracer,
} from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { SamplerName, TracingSettings } from '../config/tracing-settings.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { maskSecrets } from '../shared/redact.js';
import { parseTraceparent, parseTracestate, toTraceparent } from '../shared/trace-context.js';
import type {
  Span,
  SpanAttributes,
  SpanKind as AutotierSpanKind,
  SpanOptions,
  Tracer,
} from '../shared/tracing.js';

/**
 * Limits on what one span keeps: attribute values are cut at this many characters (a model name or
 * path is client text), and a span keeps at most this many attributes and events.
 */
const SPAN_LIMITS = {
  attributeValueLengthLimit: 256,
  attributeCountLimit: 64,
  eventCountLimit: 32,
  linkCountLimit: 0,
};

export interface OtelTracerOptions {
  settings: TracingSettings;
  clock: Clock;
  logger: Logger;
  /** `service.version` of the resource. */
  version: string;
  /** Spans are exported in batches at most this often, ms (the spec's OTEL_BSP_SCHEDULE_DELAY). @default 5000 */
  scheduledDelayMs?: number;
}

/** The OpenTelemetry tracer and its provider's life cycle. */
export interface OtelTracing {
  tracer: Tracer;
  /** Exports every ended span now; resolves even when the export fails (that is logged). */
  flush(): Promise<void>;
  /** Flushes, then stops exporting (once; on shutdown); resolves even when the export fails. */
  shutdown(): Promise<void>;
}

const KINDS: Record<AutotierSpanKind, SpanKind> = {
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  internal: SpanKind.INTERNAL,
};

function toSampler(name: SamplerName, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

/**
 * Longest attribute text masked, characters: cut to this before masking (the span limit then cuts to
 * 256), so a secret is masked whole rather than cut below its recognizable length.
 */
const MASKED_ATTRIBUTE_CHARS = 4096;

function toMaskedText(value: string): string {
  return maskSecrets(value.length > MASKED_ATTRIBUTE_CHARS ? value.slice(0, MASKED_ATTRIBUTE_CHARS) : value);
}

/** Span attributes with credentials masked in every text value (maskSecrets, as logs are). */
function toAttributes(attributes: SpanAttributes): Attributes {
  const result: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    if (typeof value === 'string') result[key] = toMaskedText(value);
    else if (Array.isArray(value)) result[key] = (value as readonly string[]).map(toMaskedText);
    else result[key] = value;
  }
  return result;
}

/**
 * Tells the logger when exports start failing (once per run of failures) and when they work again;
 * a collector that is down never fails a request.
 */
function watchExports(exporter: SpanExporter, logger: Logger, url: string): SpanExporter {
  let failing = false;
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        const failed = result.code !== ExportResultCode.SUCCESS;
        if (failed && !failing)
          logger.warn('trace export failed; spans are dropped until the collector answers', {
            url,
            error: result.error?.message,
          });
        else if (!failed && failing) logger.info('trace export works again', { url });
        failing = failed;
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

function createExporter(settings: TracingSettings): SpanExporter {
  const config = {
    url: settings.url,
    headers: { ...settings.headers },
    timeoutMillis: settings.timeoutMs,
    compression: settings.compression,
  } as ConstructorParameters<typeof JsonTraceExporter>[0];
  return settings.protocol === 'http/json'
    ? new JsonTraceExporter(config)
    : new ProtobufTraceExporter(config);
}

interface SpanParts {
  tracer: OtelTracer;
  clock: Clock;
}

/** Our span over an OpenTelemetry one; times come from the injected clock. */
function wrapSpan(parts: SpanParts, span: OtelSpan): Span {
  const recording = span.isRecording();
  let ended = false;
  let headers: Readonly<Record<string, string>> | undefined;
  return {
    recording,
    child: (name, options) => startSpan(parts, { name, options, parent: trace.setSpan(ROOT_CONTEXT, span) }),
    setAttributes(attributes) {
      if (recording) span.setAttributes(toAttributes(attributes));
    },
    fail(error) {
      if (!recording) return;
      span.setStatus({ code: SpanStatusCode.ERROR, message: error.code });
      span.setAttribute('error.type', error.code);
    },
    end() {
      if (ended) return;
      ended = true;
      span.end(parts.clock.now());
    },
    traceHeaders() {
      if (headers !== undefined) return headers;
      const context = span.spanContext();
      const traceparent = toTraceparent({
        traceId: context.traceId,
        spanId: context.spanId,
        flags: context.traceFlags,
      });
      const tracestate = context.traceState?.serialize();
      headers = tracestate === undefined || tracestate === '' ? { traceparent } : { traceparent, tracestate };
      return headers;
    },
  };
}

function startSpan(
  parts: SpanParts,
  input: { name: string; options?: SpanOptions | undefined; parent: Context },
): Span {
  const { options } = input;
  const span = parts.tracer.startSpan(
    input.name,
    {
      kind: KINDS[options?.kind ?? 'internal'],
      startTime: parts.clock.now(),
      ...(options?.attributes === undefined ? {} : { attributes: toAttributes(options.attributes) }),
    },
    input.parent,
  );
  return wrapSpan(parts, span);
}

/**
 * Tracing with the OpenTelemetry SDK and its OTLP/HTTP exporter (protobuf or JSON), batched. The
 * provider is not registered globally: spans get their parent passed explicitly, so no context
 * manager (AsyncLocalStorage) runs on the request path.
 */
export function createOtelTracing(options: OtelTracerOptions): OtelTracing {
  const { settings } = options;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      ...settings.resourceAttributes,
      [ATTR_SERVICE_NAME]: settings.serviceName,
      [ATTR_SERVICE_VERSION]: options.version,
    }),
    sampler: toSampler(settings.sampler, settings.ratio),
    spanLimits: SPAN_LIMITS,
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: watchExports(createExporter(settings), options.logger, settings.url),
        scheduledDelayMillis: options.scheduledDelayMs ?? 5000,
      }),
    ],
  });
  const parts: SpanParts = { tracer: provider.getTracer('autotier', options.version), clock: options.clock };
  let shutdown: Promise<void> | undefined;
  return {
    tracer: {
      startRequest(name, input) {
        const parent = parseTraceparent(input.incoming.traceparent);
        const tracestate = parent === undefined ? undefined : parseTracestate(input.incoming.tracestate);
        const context =
          parent === undefined
            ? ROOT_CONTEXT
            : trace.setSpanContext(ROOT_CONTEXT, {
                traceId: parent.traceId,
                spanId: parent.spanId,
                traceFlags: parent.flags & 1,
                isRemote: true,
                ...(tracestate === undefined ? {} : { traceState: createTraceState(tracestate) }),
              });
        return startSpan(parts, {
          name,
          options: {
            kind: 'server',
            ...(input.attributes === undefined ? {} : { attributes: input.attributes }),
          },
          parent: context,
        });
      },
    },
    // a failed export rejects these; it is logged once by watchExports and never fails a drain
    flush: () => provider.forceFlush().catch(() => undefined),
    shutdown: () => (shutdown ??= provider.shutdown().catch(() => undefined)),
  };
}
