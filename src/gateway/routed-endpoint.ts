import type { ContinuationPrefix, ExecuteResult } from '../balance/balancer.js';
import type { LoadedTable } from '../config/load-routing-table.js';
import type { ApiKeyConfig, DeploymentConfig } from '../config/table-part-schemas.js';
import type { KeyLimiter } from '../policy/api-keys.js';
import type { AvailabilityChecker } from '../policy/availability.js';
import type { TokenCounter } from '../policy/token-counter.js';
import type { RouteDecision } from '../routing/decide-route.js';
import type { Usage } from '../upstream/chat-chunk.js';
import type { ChatRequest } from './chat-request.js';
import type { GatewayResponse, RequestContext } from './gateway.js';
import type { AnswerShape } from './respond-routed.js';
import type { UpstreamCall } from './upstream-call.js';

/** The stream fields every routed request body shares. */
export interface StreamFlags {
  [key: string]: unknown;
  stream?: boolean | null | undefined;
  stream_options?: { include_usage?: boolean | undefined } | null | undefined;
}

/** Where and how a request goes upstream, when it is not its own body to every deployment. */
export interface UpstreamShape {
  toPath: (deployment: DeploymentConfig) => string;
  toBody: (deployment: DeploymentConfig) => string;
  shape: AnswerShape;
}

/** What the gateway shares with the endpoints: the table's keys and limits, the chat decision, the clock. */
export interface GatewayParts {
  /** The routing table in force. */
  table: () => LoadedTable;
  limiter: KeyLimiter;
  checker: AvailabilityChecker;
  tokenCounter: TokenCounter;
  /** Epoch ms, from the gateway's clock. */
  now: () => number;
  /** The routing decision for a chat request: classification, rules, policy and plan. */
  decideChat(
    request: ChatRequest,
    access: { context: RequestContext; loaded: LoadedTable; key: ApiKeyConfig | undefined },
  ): Promise<RouteDecision>;
}

/** What a routed endpoint's decision may read. */
export interface DecideAccess {
  context: RequestContext;
  loaded: LoadedTable;
  key: ApiKeyConfig | undefined;
  parts: GatewayParts;
}

/** What differs between the routed endpoints; the gateway's `serve` runs the rest. */
export interface RoutedEndpoint<T extends StreamFlags> {
  /** The upstream call: its path, the name in logs and metrics, and the body-field allow-list. */
  kind: UpstreamCall;
  parse(body: unknown): T;
  /** Whether a committed answer raises the session's tier ladder. */
  raisesSessionTier: boolean;
  /** The upstream body for one deployment; default: shapeUpstreamBody (streamed completions). */
  toBody?(request: T, decision: RouteDecision): (deployment: DeploymentConfig) => string;
  /** A non-streamed JSON answer's client body (embeddings); see RoutedRequest.toAnswer. */
  toAnswer?(
    request: T,
  ): (result: ExecuteResult) => { body: Record<string, unknown>; usage: Usage | undefined };
  /** Sequences the servers generate for the request, each up to max_tokens (see toSpendBound). */
  sequences(request: T): number;
  toPrompt(request: T): string;
  /** How a broken answer to this request is continued elsewhere; undefined when it cannot be. */
  toContinuationBody?(
    request: T,
    decision: RouteDecision,
  ): ((deployment: DeploymentConfig, delivered: ContinuationPrefix) => string) | undefined;
  decide(request: T, access: DecideAccess): Promise<RouteDecision>;
  /** Per-deployment path, body and answer shape; @default the request's own body, as a chat or legacy completion */
  toUpstream?(request: T, input: { decision: RouteDecision; context: RequestContext }): UpstreamShape;
}

/**
 * The gateway as the endpoints see it: the one path of every routed request, and the parts the other
 * endpoints share. createGateway (create-gateway.ts) builds it; src/endpoints holds one module per endpoint.
 */
export interface Gateway {
  /**
   * Parses, rate-limits, decides, admits, runs the balancer and answers a routed request for the key
   * the edge authenticated; the request is reported once, whatever happens.
   */
  serve<T extends StreamFlags>(
    endpoint: RoutedEndpoint<T>,
    input: { body: unknown; context: RequestContext; key: ApiKeyConfig | undefined },
  ): Promise<GatewayResponse>;
  parts: GatewayParts;
  /** The key of a request (undefined in open mode); throws 401 for a bad key. */
  authenticate(context: RequestContext): ApiKeyConfig | undefined;
}
