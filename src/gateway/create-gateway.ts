import type { Balancer, ExecuteResult } from '../balance/create-balancer.js';
import type { Classifier } from '../classify/decision.js';
import type { LoadedTable } from '../config/load-routing-table.js';
import type { Logger } from '../observe/logger.js';
import type { TokenCounter } from '../policy/token-counter.js';
import type { Clock } from '../shared/clock.js';
import type { ChatChunk } from '../upstream/chat-chunk.js';
import { TIERS, toTierRank } from '../shared/tier.js';
import { createAvailabilityChecker } from '../policy/availability.js';
import type { StateStore } from '../state/state-store.js';
import { toRouterError } from '../shared/errors.js';
import { assembleChatCompletion } from './assemble-completion.js';
import { chatRequestSchema, parseBody, type ChatRequest } from './chat-request.js';
import { decideRoute, type RouteDecision, type RouteHints } from './decide-route.js';
import { shapeUpstreamBody } from './shape-body.js';
import { toSse } from './to-sse.js';
import { toRouteHeaders } from './route-headers.js';

export interface RequestContext {
  requestId: string;
  /** Aborted when the client disconnects. */
  signal: AbortSignal;
  /** Epoch ms when the request arrived. */
  receivedAt: number;
  /** Routing hints from headers. */
  hints: RouteHints;
  /** False when the API key (issue 6) may not override routing. @default true */
  keyAllowsOverrides?: boolean;
}

export type GatewayResponse =
  | { kind: 'json'; status: number; headers: Record<string, string>; body: unknown }
  | { kind: 'stream'; headers: Record<string, string>; events: AsyncIterable<string> };

export interface GatewayOptions {
  /** The routing table in force (hot reload swaps it; a request keeps the one it started with). */
  table: () => LoadedTable;
  /** The classifier for a table; built once per table load. */
  classifier: () => Classifier;
  balancer: Balancer;
  store: StateStore;
  tokenCounter: TokenCounter;
  clock: Clock;
  logger: Logger;
}

export interface Gateway {
  chatCompletion(body: unknown, context: RequestContext): Promise<GatewayResponse>;
  /** The decision for a chat request, without calling any backend (POST /v1/route). */
  explain(body: unknown, context: RequestContext): Promise<Record<string, unknown>>;
  listModels(): Record<string, unknown>;
}

export function createGateway(options: GatewayOptions): Gateway {
  const { clock } = options;
  const checker = createAvailabilityChecker();

  async function decide(
    request: ChatRequest,
    context: RequestContext,
    loaded: LoadedTable,
  ): Promise<RouteDecision> {
    const { table } = loaded;
    const userKey = table.sessions.key === 'header_or_user' ? (request.user ?? undefined) : undefined;
    return decideRoute({
      table,
      classifier: options.classifier(),
      tokenCounter: options.tokenCounter,
      checker,
      store: options.store,
      now: clock.now(),
      hints: { ...context.hints, sessionKey: context.hints.sessionKey ?? userKey },
      overridesAllowed: table.overrides.allow_client && context.keyAllowsOverrides !== false,
      request: {
        model: request.model,
        messages: request.messages,
        tools: request.tools ?? null,
        maxTokens: request.max_tokens ?? request.max_completion_tokens ?? undefined,
      },
      signal: context.signal,
    });
  }

  async function chatCompletion(body: unknown, context: RequestContext): Promise<GatewayResponse> {
    const request = parseBody(chatRequestSchema, body) as ChatRequest;
    const loaded = options.table();
    const decision = await decide(request, context, loaded);
    const stream = request.stream === true;
    const result = await options.balancer.execute({
      plan: decision.plan,
      path: '/chat/completions',
      toBody: (deployment) =>
        shapeUpstreamBody({
          body: request,
          deployment,
          tierConfig: decision.tierConfig,
          maxTokens: decision.maxTokens,
        }),
      signal: context.signal,
      requestId: context.requestId,
      commit: stream ? 'first_content' : 'complete',
      startedAt: context.receivedAt,
    });
    await recordSession(decision, loaded, context);
    const headers = toRouteHeaders({
      decision,
      result,
      overheadMs: clock.now() - context.receivedAt - result.upstreamMs,
      requestId: context.requestId,
    });
    if (!stream)
      return {
        kind: 'json',
        status: 200,
        headers,
        body: assembleChatCompletion(result.head.map((event) => event.chunk)),
      };
    const includeUsage = request.stream_options?.include_usage === true;
    return {
      kind: 'stream',
      headers,
      events: toSse({
        result,
        includeUsage,
        requestId: context.requestId,
        onEnd: (error) => logEnd({ result, error, context }),
      }),
    };
  }

  async function recordSession(
    decision: RouteDecision,
    loaded: LoadedTable,
    context: RequestContext,
  ): Promise<void> {
    const key = context.hints.sessionKey ?? decision.sessionKey;
    if (decision.sessionTier === undefined || key === undefined || !loaded.table.sessions.enabled) return;
    const ttlMs = loaded.table.sessions.window_minutes * 60_000;
    await options.store.raiseSessionTier({ key, rank: toTierRank(decision.sessionTier), ttlMs });
  }

  function logEnd(end: { result: ExecuteResult; error: unknown; context: RequestContext }): void {
    if (end.error !== undefined)
      options.logger.warn('stream failed after commit', {
        request_id: end.context.requestId,
        deployment: end.result.deployment.id,
        error: toRouterError(end.error).message,
      });
  }

  async function explain(body: unknown, context: RequestContext): Promise<Record<string, unknown>> {
    const request = parseBody(chatRequestSchema, body) as ChatRequest;
    const decision = await decide(request, context, options.table());
    return toExplanation(decision);
  }

  function listModels(): Record<string, unknown> {
    const { table, loadedAt } = options.table();
    const created = Math.floor(loadedAt / 1000);
    const names = [
      'auto',
      ...TIERS.map((tier) => `tier:${tier}`),
      ...new Set(table.deployments.map((deployment) => deployment.model)),
    ];
    return {
      object: 'list',
      data: names.map((id) => ({ id, object: 'model', created, owned_by: 'autotier' })),
    };
  }

  return { chatCompletion, explain, listModels };
}

/** The JSON of POST /v1/route. */
export function toExplanation(decision: RouteDecision): Record<string, unknown> {
  const { plan, classification } = decision;
  return {
    complexity: decision.complexity ?? null,
    tier: plan.tier,
    cause: decision.cause,
    confidence: decision.confidence ?? null,
    signals: classification?.signals ?? [],
    needs_vision: classification?.needsVision ?? false,
    stage_latency_ms: classification?.stageLatencyMs ?? {},
    prompt_tokens: decision.promptTokens,
    max_tokens: decision.maxTokens,
    rules: decision.rules,
    deployments: [...plan.group, ...plan.fallback].map((deployment) => deployment.id),
    group: plan.group.map((deployment) => deployment.id),
    fallback: plan.fallback.map((deployment) => deployment.id),
    strategy: plan.strategy,
    timeouts: plan.timeouts,
  };
}

export type { ChatChunk };
