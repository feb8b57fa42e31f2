import type { DeploymentConfig } from '../config/table-part-schemas.js';
import type { ChatChunk } from './chat-chunk.js';
import type { CancelSignal } from '../shared/cancel-signal.js';

/** Per-attempt limits, already narrowed to what is left of the request's total deadline. */
export interface AttemptLimits {
  /** Time to receive response headers, in ms. */
  connectMs: number;
  /** Time from the start of the attempt to the first content chunk, in ms. */
  ttftMs: number;
  /** Longest gap between chunks once content flows, in ms. */
  idleMs: number;
  /** Absolute epoch ms after which the attempt is abandoned (the tier's total deadline). */
  deadlineAt: number;
}

export interface AttemptRequest {
  deployment: DeploymentConfig;
  /** Path below the deployment's base URL: `/chat/completions` or `/completions`. */
  path: string;
  /** Serialized JSON body, already shaped for this deployment (model name, extra body, stream: true). */
  body: string;
  signal: CancelSignal;
  limits: AttemptLimits;
  requestId: string;
  /**
   * W3C trace headers (`traceparent`, `tracestate`) sent with the call: the attempt span's when
   * tracing is on, the client's own when it is off; absent or empty when there is none.
   */
  traceHeaders?: Readonly<Record<string, string>>;
  /**
   * `sse`: a stream of chat chunks; `json`: one JSON answer (POST /embeddings), read whole as one event
   * at the end of the body. @default sse
   */
  answer?: 'sse' | 'json';
}

/** One server-sent event of an upstream stream: its raw JSON text and the parsed chunk. */
export interface UpstreamEvent {
  data: string;
  chunk: ChatChunk;
  /** True for the first event that carried content (the streaming commit point). */
  firstContent: boolean;
}

/** An upstream stream whose response headers arrived with status 200. */
export interface UpstreamAttempt {
  /** Milliseconds from the start of the attempt to the response headers. */
  headersMs: number;
  /**
   * Events in order, batched as they arrived (one batch per network read, so a burst costs one
   * iteration, not one per event); throws a RouterError on timeout, cut, malformed chunk or abort.
   */
  events: AsyncIterable<UpstreamEvent[]>;
  /** Stops the attempt and releases its connection (idempotent). */
  abort(): void;
}

/** Something that opens streamed OpenAI-compatible calls to deployments. */
export interface Upstream {
  /** Resolves once headers with status 200 arrived; rejects with a RouterError otherwise. */
  open(request: AttemptRequest): Promise<UpstreamAttempt>;
  close(): Promise<void>;
}
