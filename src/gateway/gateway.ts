import type { ApiKeyConfig } from '../config/table-part-schemas.js';
import type { CancelSignal } from '../shared/cancel-signal.js';
import type { Span } from '../shared/tracing.js';
import type { RouteHints } from '../routing/decide-route.js';

/**
 * The gateway as the HTTP edge sees it: an endpoint's body and the request's context in, an answer to
 * write out. createGateway (create-gateway.ts) builds it.
 */
export interface Gateway {
  chatCompletion(body: unknown, context: RequestContext): Promise<GatewayResponse>;
  /** The Responses API: routed like chat; natively to deployments with `responses: true`, else translated. */
  responses(body: unknown, context: RequestContext): Promise<GatewayResponse>;
  /** Legacy completions (IDE autocomplete): the autocomplete group, no classification. */
  completion(body: unknown, context: RequestContext): Promise<GatewayResponse>;
  /** The decision for a chat request, without calling any backend (POST /v1/route). */
  explain(body: unknown, context: RequestContext): Promise<Record<string, unknown>>;
  /** POST /v1/embeddings: the embeddings group, no classification. */
  embeddings(body: unknown, context: RequestContext): Promise<GatewayResponse>;
  listModels(): Record<string, unknown>;
  /** GET /v1/models/{id}: the model card of `auto`, a tier alias or a served model; 404 otherwise. */
  retrieveModel(id: string): Record<string, unknown>;
  /** The key of a request (undefined in open mode); throws 401 for a bad key. */
  authenticate(context: RequestContext): ApiKeyConfig | undefined;
}

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
