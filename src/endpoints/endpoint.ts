import type { Access, Exchange } from '../gateway/exchange.js';
import type { GatewayResponse } from '../gateway/gateway.js';
import type { Gateway } from '../gateway/routed-endpoint.js';
import type { UpstreamCall } from '../gateway/upstream-call.js';
import type { EndpointName } from '../observe/request-summary.js';

/** What an endpoint answers: a gateway answer (JSON or SSE), or bytes with their own headers (pages, metrics, redirects). */
export type Answer =
  GatewayResponse | { kind: 'raw'; status: number; headers: Record<string, string>; body: string | Buffer };

/** A JSON answer with no extra headers. */
export function jsonAnswer(status: number, body: unknown): Answer {
  return { kind: 'json', status, headers: {}, body };
}

export type { Access } from '../gateway/exchange.js';

export interface RouteInput {
  /** The request: its id, key (authenticated by the edge), body (read by the edge when the route reads one), signal. */
  exchange: Exchange;
  /** Where the edge is mounted ('' at the root, `/llm` under `app.use('/llm', router)`): paths are relative to it. */
  basePath: string;
}

/** What the endpoints' handlers call: the gateway, and the process's own probes. */
export interface EndpointServices {
  gateway: Gateway;
  /** True when a table is loaded and at least one deployment is not cooling down. */
  isReady: () => Promise<boolean>;
  /** Prometheus text of the metrics registry, and its content type. */
  metrics: () => Promise<string>;
  metricsContentType: string;
  /** GET /autotier/state */
  state: () => Promise<Record<string, unknown>>;
}

/**
 * One endpoint, declared once: its method and path, who may call it, its body, the upstream call it
 * makes and its handler. The edge checks access, reads the body and maps errors for all of them.
 */
export interface EndpointModule {
  method: 'GET' | 'POST';
  path: string;
  /**
   * True when `path` (ending in `/`) is a prefix: the endpoint takes every longer path below it, slashes
   * included (`/v1/models/` + a model id such as `Qwen/Qwen3-8B`). Exact paths are looked up first.
   */
  prefix?: boolean;
  /** Its name in logs and metrics. */
  name: EndpointName;
  access: Access;
  /**
   * The JSON body the edge reads (after the key check) and the allow-list its top-level fields are
   * checked against; `none` when the endpoint reads no body.
   */
  body: UpstreamCall | 'none';
  /** The kind of upstream call it makes; `none` when it calls no backend. */
  upstream: UpstreamCall | 'none';
  handle(input: RouteInput, services: EndpointServices): Promise<Answer> | Answer;
}
