import { parseTraceparent, parseTracestate, toTraceparent } from './trace-context.js';

/**
 * The tracing surface the core uses: the OpenTelemetry implementation lives in
 * observe/otel-tracer.ts and is wired only in main.ts; without it every span is the pass-through one
 * below, which records nothing.
 */
export type SpanValue = string | number | boolean | readonly string[];
/** Attributes of a span; undefined entries are left out. */
export type SpanAttributes = Readonly<Record<string, SpanValue | undefined>>;
export type SpanKind = 'server' | 'client' | 'internal';

export interface SpanOptions {
  /** @default 'internal' */
  kind?: SpanKind;
  attributes?: SpanAttributes;
}

export interface Span {
  /**
   * True when the span is recorded (tracing on and the trace sampled): compute attributes only then,
   * so tracing off costs a property read.
   */
  readonly recording: boolean;
  /** A span under this one, started now. */
  child(name: string, options?: SpanOptions): Span;
  setAttributes(attributes: SpanAttributes): void;
  /** Status ERROR with the error's code as its message, and `error.type` = the code (never the message). */
  fail(error: { code: string }): void;
  /** Ends the span; later calls do nothing. */
  end(): void;
  /**
   * The W3C headers (`traceparent`, `tracestate`) that a call made under this span sends, so the
   * callee's spans join the trace; empty when there is no trace to join.
   */
  traceHeaders(): Readonly<Record<string, string>>;
}

/** The trace headers of an incoming request, as the client sent them (client bytes, checked by the tracer). */
export interface IncomingTrace {
  traceparent: string | undefined;
  tracestate: string | undefined;
}

export interface Tracer {
  /**
   * The span of one incoming request (kind server), a child of the client's `traceparent` when that
   * is valid; a malformed one is ignored.
   */
  startRequest(name: string, input: { incoming: IncomingTrace; attributes?: SpanAttributes }): Span;
}

/**
 * `gen_ai.operation.name` of an OpenAI-style path (GenAI semantic conventions): chat for
 * `/chat/completions`, text_completion for `/completions`, embeddings for `/embeddings`.
 */
export function toGenAiOperation(path: string): string {
  if (path.endsWith('/chat/completions')) return 'chat';
  if (path.endsWith('/completions')) return 'text_completion';
  if (path.endsWith('/embeddings')) return 'embeddings';
  return 'chat';
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** A span that records nothing and carries `headers` to every call made under it (and its children). */
function createUnrecordedSpan(headers: Readonly<Record<string, string>>): Span {
  const span: Span = {
    recording: false,
    child: () => span,
    setAttributes: () => undefined,
    fail: () => undefined,
    end: () => undefined,
    traceHeaders: () => headers,
  };
  return span;
}

/** The span of untraced work: records nothing, sends no trace headers. */
export const NO_SPAN: Span = createUnrecordedSpan(NO_HEADERS);

/** The W3C headers of a valid incoming trace, normalized; undefined when `traceparent` is absent or malformed. */
export function toIncomingHeaders(incoming: IncomingTrace): Record<string, string> | undefined {
  const parent = parseTraceparent(incoming.traceparent);
  if (parent === undefined) return undefined;
  const tracestate = parseTracestate(incoming.tracestate);
  return tracestate === undefined
    ? { traceparent: toTraceparent(parent) }
    : { traceparent: toTraceparent(parent), tracestate };
}

/**
 * The tracer when tracing is off. Nothing is recorded and no trace id is made up, but a client's valid
 * `traceparent` (and `tracestate`) goes upstream unchanged on every attempt, as a proxy that does not
 * trace would pass it: the backend's spans then still join the client's trace. A malformed one is
 * dropped. Costs one header check per request that carries one, nothing otherwise.
 */
export const passThroughTracer: Tracer = {
  startRequest(_name, input) {
    if (input.incoming.traceparent === undefined) return NO_SPAN;
    const headers = toIncomingHeaders(input.incoming);
    return headers === undefined ? NO_SPAN : createUnrecordedSpan(Object.freeze(headers));
  },
};

/**
 * Runs `run` in a child span of `parent` named `name`: the span ends when `run` settles, failed with
 * the error's code when it throws (a RouterError's, else INTERNAL).
 */
export async function inSpan<T>(parent: Span, name: string, run: (span: Span) => Promise<T> | T): Promise<T> {
  const span = parent.child(name);
  try {
    return await run(span);
  } catch (error) {
    span.fail({ code: toErrorCode(error) });
    throw error;
  } finally {
    span.end();
  }
}

function toErrorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z_]{1,64}$/.test(code) ? code : 'INTERNAL';
}
