import { afterEach, describe, expect, it } from 'vitest';
import { parseEnv } from '../config/env.js';
import { toTracingSettings } from '../config/tracing-settings.js';
import { systemClock } from '../shared/clock.js';
import { createRecordingLogger } from '../shared/logger.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../test/helpers/otlp-receiver.js';
import { createOtelTracing, type OtelTracing } from './otel-tracer.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';

function tracingFor(env: Record<string, string>, logger = createRecordingLogger()): OtelTracing {
  const settings = toTracingSettings(parseEnv(env));
  if (settings === undefined) throw new Error('tracing should be on');
  return createOtelTracing({ settings, clock: systemClock, logger, version: 'test' });
}

describe('createOtelTracing', () => {
  let receiver: OtlpReceiver | undefined;
  let tracing: OtelTracing | undefined;
  afterEach(async () => {
    await tracing?.shutdown();
    await receiver?.close();
    tracing = undefined;
    receiver = undefined;
  });

  it('with OTEL_TRACES_SAMPLER=always_off records and exports nothing, yet still propagates the trace (unsampled)', async () => {
    receiver = await startOtlpReceiver();
    tracing = tracingFor({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_SAMPLER: 'always_off' });
    const span = tracing.tracer.startRequest('POST /v1/chat/completions', {
      incoming: { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`, tracestate: 'vendor=abc' },
    });
    expect(span.recording).toBe(false);
    const headers = span.child('chat m', { kind: 'client' }).traceHeaders();
    expect(headers['traceparent']).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-00$`));
    expect(headers['tracestate']).toBe('vendor=abc');
    span.end();
    await tracing.flush();
    expect(receiver.exports).toHaveLength(0);
  });

  it('exports span attributes with their credentials masked', async () => {
    receiver = await startOtlpReceiver();
    tracing = tracingFor({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const span = tracing.tracer.startRequest('POST /v1/chat/completions', {
      incoming: { traceparent: undefined, tracestate: undefined },
      attributes: { 'url.full': 'redis://:hunter2-pw@cache:6379' },
    });
    span.setAttributes({
      'autotier.error': 'got hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567',
      'autotier.rules': ['password=letmein', 'plain'],
      'autotier.attempts': 2,
    });
    span.end();
    await tracing.flush();
    const attributes = receiver.spans[0]?.attributes ?? {};
    expect(JSON.stringify(Object.values(attributes), (_key, value: unknown) => String(value))).not.toMatch(
      /hunter2-pw|hf_AbCd|letmein/,
    );
    expect(attributes['autotier.error']).toBe('got ***');
    expect(Number(attributes['autotier.attempts'])).toBe(2);
  });

  it('follows an unsampled client parent under the default parentbased_always_on', async () => {
    receiver = await startOtlpReceiver();
    tracing = tracingFor({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const unsampled = tracing.tracer.startRequest('GET /v1/models', {
      incoming: { traceparent: `00-${TRACE_ID}-${SPAN_ID}-00`, tracestate: undefined },
    });
    expect(unsampled.recording).toBe(false);
    unsampled.end();
    const sampled = tracing.tracer.startRequest('GET /v1/models', {
      incoming: { traceparent: undefined, tracestate: undefined },
    });
    expect(sampled.recording).toBe(true);
    sampled.end();
    await tracing.flush();
    expect(receiver.spans.map((item) => item.name)).toEqual(['GET /v1/models']);
    expect(receiver.spans[0]?.traceId).not.toBe(TRACE_ID);
  });

  it('cuts a long attribute value (client text) to 256 characters', async () => {
    receiver = await startOtlpReceiver();
    tracing = tracingFor({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const span = tracing.tracer.startRequest('POST /v1/chat/completions', {
      incoming: { traceparent: undefined, tracestate: undefined },
    });
    span.setAttributes({
      'gen_ai.request.model': 'm'.repeat(10_000),
      'autotier.signals': ['s'.repeat(1000)],
    });
    span.end();
    span.end();
    await tracing.flush();
    expect(receiver.spans).toHaveLength(1);
    expect(receiver.spans[0]?.attributes['gen_ai.request.model']).toBe('m'.repeat(256));
    expect(receiver.spans[0]?.attributes['autotier.signals']).toEqual(['s'.repeat(256)]);
  });

  it('warns once when the collector is unreachable, naming the URL and never the export headers', async () => {
    const logger = createRecordingLogger();
    // a receiver that has stopped: its port refuses connections
    const stopped = await startOtlpReceiver();
    await stopped.close();
    const { url } = stopped;
    tracing = tracingFor(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: url,
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20vendor-secret-1',
        // one try per export: no retry fits in 300 ms (the exporter's first backoff is about 1 s)
        OTEL_EXPORTER_OTLP_TIMEOUT: '300',
      },
      logger,
    );
    for (let index = 0; index < 3; index += 1) {
      tracing.tracer
        .startRequest('GET /health', { incoming: { traceparent: undefined, tracestate: undefined } })
        .end();
      await tracing.flush();
    }
    const warnings = logger.lines.filter((line) => line.message.startsWith('trace export failed'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.fields['url']).toBe(`${url}/v1/traces`);
    expect(JSON.stringify(logger.lines)).not.toContain('vendor-secret-1');
  });
});
