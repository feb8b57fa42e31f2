import type { CancelSignal } from '../shared/cancel-signal.js';
import type { Span } from '../shared/tracing.js';
import type { RouteHints } from '../routing/decide-route.js';

export interface RequestContext {
  /** autotier's id for the request (a UUID), sent upstream as `x-request-id`. */
  requestId: string;
  /** The client's own `x-request-id`, bounded (see toClientRequestId); logged, never sent upstream. */
  clientRequestId?: string | undefined;
  /** Aborted when the client disconnects (CLIENT_CLOSED), or when a drain's grace period ends (SHUTTING_DOWN). */
  signal: CancelSignal;
  /** Epoch ms when the request arrived. */
  receivedAt: number;
  /** Method and path (no query string) as the client sent them, for logs. */
  http: { method: string; path: string };
  /** Routing hints from headers. */
  hints: RouteHints;
  /** `Authorization` and `x-api-key` headers. */
  credentials: { authorization?: string | undefined; apiKey?: string | undefined };
  /** The request's span; the routing work hangs its spans under it. @default NO_SPAN */
  trace?: Span | undefined;
}

/**
 * An answer to write. `stallMs`: how long the client may take none of it before it is cut and the
 * request stopped, ms (a routed answer's tier idle_ms). @default 10000
 */
export type GatewayResponse =
  | { kind: 'json'; status: number; headers: Record<string, string>; body: unknown; stallMs?: number }
  | { kind: 'stream'; headers: Record<string, string>; events: AsyncIterable<string>; stallMs?: number };
