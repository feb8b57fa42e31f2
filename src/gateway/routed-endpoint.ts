import type { ContinuationPrefix, ExecuteResult } from '../balance/balancer.js';
import type { LoadedTable } from '../config/load-routing-table.js';
import type { ApiKeyConfig, DeploymentConfig } from '../config/table-part-schemas.js';
import type { KeyLimiter } from '../policy/api-keys.js';
import type { AvailabilityChecker } from '../policy/availability.js';
import type { TokenCounter } from '../policy/token-counter.js';
import type { Classified, DecideInput, RouteDecision } from '../routing/decide-route.js';
import type { Usage } from '../upstream/chat-chunk.js';
import type { ChatRequest } from './chat-request.js';
import type { Exchange } from './exchange.js';
import type { GatewayResponse } from './gateway.js';
import type { SseFramer } from './to-sse.js';
import type { UpstreamCall } from './upstream-call.js';

/** The stream fields every routed request body shares. */
export interface StreamFlags {
  [key: string]: unknown;
  stream?: boolean | null | undefined;
  stream_options?: { include_usage?: boolean | undefined } | null | undefined;
}

/** How an answer that is neither a chat nor a legacy completion is written (the Responses API). */
export interface AnswerShape {
  /** The JSON answer of a buffered request. */
  toBody(result: ExecuteResult): Record<string, unknown>;
  /** The SSE framing of a streamed one. */
  toFramer(result: ExecuteResult): SseFramer;
}

/** What the gateway shares with the endpoints: the table, the key limits, the chat decision's input, the clock. */
export interface GatewayParts {
  /** The routing table in force. */
  table: () => LoadedTable;
  limiter: KeyLimiter;
  checker: AvailabilityChecker;
  tokenCounter: TokenCounter;
  /** Epoch ms, from the gateway's clock. */
  now: () => number;
  /** What classifying and planning a chat request read: the table, the classifier, the key's access, the hints. */
  toChatDecideInput(request: ChatRequest, exchange: Exchange): DecideInput;
}

/**
 * A routed endpoint's own part of the pipeline (src/endpoints declares one per endpoint): its body,
 * how it is classified and planned, and what goes upstream and back. The gateway's stages
 * (stages/*.ts) run the rest the same way for every endpoint.
 */
export interface RoutedEndpoint<T extends StreamFlags> {
  /** The upstream call: its path, the name in logs and metrics, and the body-field allow-list. */
  kind: UpstreamCall;
  /** The parse stage: the body checked against the endpoint's schema (a 400 naming the field). */
  parse(body: unknown): T;
  /** The prompt text, logged only when content logging is on; none: nothing is logged. */
  toPrompt?(request: T): string;
  /** The classify stage; none: the endpoint is not classified and its plan decides alone. */
  classify?: (request: T, exchange: Exchange<T>, parts: GatewayParts) => Promise<Classified>;
  /** The plan stage: the tier, its deployments and fallback, limits and the rules applied. */
  plan(request: T, exchange: Exchange<T>, parts: GatewayParts): Promise<RouteDecision>;
  /** Sequences the servers generate for the request, each up to max_tokens (see toSpendBound). */
  sequences(request: T): number;
  /** Whether a committed answer raises the session's tier ladder. */
  raisesSessionTier: boolean;
  /** The upstream path for one deployment. @default UPSTREAM_PATHS[kind] */
  toPath?: (deployment: DeploymentConfig) => string;
  /** The upstream body for one deployment. @default shapeUpstreamBody (the request's own body) */
  toBody?(request: T, decision: RouteDecision): (deployment: DeploymentConfig) => string;
  /** How a broken answer to this request is continued elsewhere; undefined when it cannot be. */
  toContinuationBody?(
    request: T,
    decision: RouteDecision,
  ): ((deployment: DeploymentConfig, delivered: ContinuationPrefix) => string) | undefined;
  /**
   * A non-streamed answer that is not a completion (embeddings): the upstream answers with one JSON
   * body, and this builds the client's body and the usage to report from it.
   */
  toAnswer?(
    request: T,
  ): (result: ExecuteResult) => { body: Record<string, unknown>; usage: Usage | undefined };
  /** Writes the answer in another shape than a chat or legacy completion (the Responses API). */
  toShape?(request: T, exchange: Exchange<T>): AnswerShape;
}

/**
 * The gateway as the endpoints see it: the routed pipeline, the decision without a backend call
 * (/v1/route), and the parts the other endpoints share. createGateway (create-gateway.ts) builds it.
 */
export interface Gateway {
  /**
   * Runs a routed request through its stages (parse, admit, classify, plan, reserve, balance, answer)
   * for the key the edge authenticated, and settles it once, whatever happens.
   */
  serve<T extends StreamFlags>(endpoint: RoutedEndpoint<T>, exchange: Exchange): Promise<GatewayResponse>;
  /** The decision a routed endpoint would make, without calling a backend: parse, admit, classify and plan. */
  explain<T extends StreamFlags>(endpoint: RoutedEndpoint<T>, exchange: Exchange): Promise<RouteDecision>;
  parts: GatewayParts;
  /** The key of a request (undefined in open mode); throws 401 for a bad key. */
  authenticate(credentials: Exchange['credentials']): ApiKeyConfig | undefined;
}
