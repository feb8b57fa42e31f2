import { describe, expect, it } from 'vitest';
import { parseTraceparent, parseTracestate, toTraceparent } from './trace-context.js';
import { NO_SPAN, passThroughTracer } from './tracing.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const VALID = `00-${TRACE_ID}-${SPAN_ID}-01`;

describe('parseTraceparent', () => {
  it('reads a version-00 traceparent and writes it back the same', () => {
    const parent = parseTraceparent(VALID);
    expect(parent).toEqual({ traceId: TRACE_ID, spanId: SPAN_ID, flags: 1 });
    expect(toTraceparent(parent!)).toBe(VALID);
  });

  it('reads a later version with extra fields, keeping only the known ones', () => {
    expect(parseTraceparent(`cc-${TRACE_ID}-${SPAN_ID}-00-whatever-comes`)).toEqual({
      traceId: TRACE_ID,
      spanId: SPAN_ID,
      flags: 0,
    });
  });

  it('ignores every malformed form (never an error)', () => {
    for (const bad of [
      undefined,
      '',
      'garbage',
      `ff-${TRACE_ID}-${SPAN_ID}-01`,
      `00-${'0'.repeat(32)}-${SPAN_ID}-01`,
      `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
      `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`,
      `00-${TRACE_ID}-${SPAN_ID}-01-extra`,
      `00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`,
      `00-${TRACE_ID}-${SPAN_ID}-1`,
      `00_${TRACE_ID}_${SPAN_ID}_01`,
    ])
      expect(parseTraceparent(bad), String(bad)).toBeUndefined();
  });

  it('refuses a megabyte header at once, without scanning it', () => {
    const hostile = `cc-${TRACE_ID}-${SPAN_ID}-01-${'x'.repeat(1_000_000)}`;
    const started = performance.now();
    expect(parseTraceparent(hostile)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(50);
  });
});

describe('parseTracestate', () => {
  it('keeps a well-formed list, trimmed of blank members', () => {
    expect(parseTracestate('vendor=abc, other@sys=x1 ,,')).toBe('vendor=abc,other@sys=x1');
  });

  it('drops the whole header when a member is malformed or the limits are passed', () => {
    for (const bad of [
      'Vendor=abc',
      'vendor',
      'vendor=a,b',
      'vendor=has=equals',
      `vendor=${'v'.repeat(257)}`,
      Array.from({ length: 33 }, (_, index) => `k${index}=v`).join(','),
      `k=${'v'.repeat(600)}`,
    ])
      expect(parseTracestate(bad), bad.slice(0, 40)).toBeUndefined();
  });
});

describe('passThroughTracer (tracing off)', () => {
  it('records nothing and invents no trace headers without a traceparent', () => {
    const span = passThroughTracer.startRequest('POST /v1/chat/completions', {
      incoming: { traceparent: undefined, tracestate: 'vendor=abc' },
    });
    expect(span).toBe(NO_SPAN);
    expect(span.child('chat x').traceHeaders()).toEqual({});
  });

  it("hands a client's valid trace headers to every call under the request, unchanged", () => {
    const span = passThroughTracer.startRequest('POST /v1/chat/completions', {
      incoming: { traceparent: VALID, tracestate: 'vendor=abc' },
    });
    expect(span.recording).toBe(false);
    expect(span.child('chat x').child('deeper').traceHeaders()).toEqual({
      traceparent: VALID,
      tracestate: 'vendor=abc',
    });
    const malformed = passThroughTracer.startRequest('POST /v1/chat/completions', {
      incoming: { traceparent: `00-${TRACE_ID}-${SPAN_ID}`, tracestate: 'vendor=abc' },
    });
    expect(malformed.traceHeaders()).toEqual({});
  });
});
