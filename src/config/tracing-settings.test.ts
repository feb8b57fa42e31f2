import { describe, expect, it } from 'vitest';
import { parseEnv } from './env.js';
import { toTracingSettings } from './tracing-settings.js';

const settingsOf = (env: Record<string, string>) => toTracingSettings(parseEnv(env));

describe('toTracingSettings', () => {
  it('leaves tracing off without an endpoint or OTEL_TRACES_EXPORTER=otlp', () => {
    expect(settingsOf({})).toBeUndefined();
    expect(settingsOf({ OTEL_SERVICE_NAME: 'gw', OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
  });

  it('turns on with an endpoint, appending /v1/traces, with the spec defaults', () => {
    expect(settingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      compression: 'none',
      timeoutMs: 10_000,
      serviceName: 'autotier',
      resourceAttributes: {},
      sampler: 'parentbased_always_on',
      ratio: 1,
    });
  });

  it('uses the traces endpoint as is and prefers the signal-specific variables', () => {
    const settings = settingsOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/custom/path',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-a=1,x-b=2',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-b=3,authorization=Bearer%20t0ken',
      OTEL_EXPORTER_OTLP_TIMEOUT: '5000',
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '2000',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attrs,deployment.environment=prod',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    });
    expect(settings).toMatchObject({
      url: 'https://b/custom/path',
      protocol: 'http/json',
      headers: { 'x-a': '1', 'x-b': '3', authorization: 'Bearer t0ken' },
      timeoutMs: 2000,
      serviceName: 'from-attrs',
      resourceAttributes: { 'deployment.environment': 'prod' },
      sampler: 'parentbased_traceidratio',
      ratio: 0.25,
    });
    expect(settingsOf({ OTEL_TRACES_EXPORTER: 'otlp' })?.url).toBe('http://localhost:4318/v1/traces');
  });

  it('stays off with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, whatever else is set', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(settingsOf({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toBeUndefined();
    expect(settingsOf({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    expect(settingsOf({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBeDefined();
  });

  it('refuses malformed values naming the variable, without repeating a header value', () => {
    const cases: Record<string, string>[] = [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://collector' },
      { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      { OTEL_TRACES_EXPORTER: 'zipkin' },
      { OTEL_TRACES_SAMPLER: 'jaeger_remote' },
      { OTEL_TRACES_SAMPLER_ARG: '1.5' },
      { OTEL_SDK_DISABLED: 'yes' },
      { OTEL_EXPORTER_OTLP_TIMEOUT: '-1' },
    ];
    for (const env of cases) expect(() => parseEnv(env)).toThrow(new RegExp(Object.keys(env)[0]!));
    const secret = 'sk-live-secret%ZZ';
    let message = '';
    try {
      parseEnv({ OTEL_EXPORTER_OTLP_HEADERS: `authorization=${secret}` });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/OTEL_EXPORTER_OTLP_HEADERS: item 1 is not a header/);
    expect(message).not.toContain('sk-live');
    expect(() => parseEnv({ OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign' })).toThrow(
      /OTEL_EXPORTER_OTLP_HEADERS/,
    );
  });
});
