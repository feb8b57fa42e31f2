import type { Balancer } from '../balance/balancer.js';
import type { Classifier } from '../classify/decision.js';
import { compileTableRules, type TableRule } from '../classify/table-rules.js';
import type { LoadedTable } from '../config/load-routing-table.js';
import type { ContinuationPrefix } from '../balance/balancer.js';
import type { ApiKeyConfig, DeploymentConfig } from '../config/table-part-schemas.js';
import type { Logger } from '../shared/logger.js';
import type { RequestObserver } from '../observe/request-summary.js';
import {
  authenticate,
  createKeyLimiter,
  toKeyIndex,
  type KeyAdmission,
  type KeyIndex,
} from '../policy/api-keys.js';
import { acquireRequestSlot, withKeyLimits } from '../policy/key-concurrency.js';
import { toOverridesDisabledBy } from '../policy/client-overrides.js';
import { createAvailabilityChecker } from '../policy/availability.js';
import { toSessionKey } from '../policy/session-key.js';
import type { TokenCounter } from '../policy/token-counter.js';
import type { Clock } from '../shared/clock.js';
import { RouterError, toShutdownReason } from '../shared/errors.js';
import { toMessageText, type ChatMessage } from '../shared/chat.js';
import { toTierRank } from '../shared/tier.js';
import type { StateStore } from '../state/state-store.js';
import {
  chatRequestSchema,
  completionRequestSchema,
  parseBody,
  type ChatRequest,
  type CompletionRequest,
} from './chat-request.js';
import { decideRoute, type RouteDecision } from '../routing/decide-route.js';
import { toCompletionDecision } from './completion-route.js';
import { toContinuationBodyMaker } from './continuation-body.js';
import { createRequestTracker } from './request-tracker.js';
import { toRequestAttributes } from './request-span-attributes.js';
import { toEmbeddingAnswer } from './embedding-answer.js';
import {
  embeddingRequestSchema,
  toInputParts,
  toInputSize,
  type EmbeddingRequest,
} from './embedding-request.js';
import { toEmbeddingsDecision } from './embeddings-route.js';
import type { Gateway, GatewayResponse, RequestContext } from './gateway.js';
import { shapeEmbeddingBody } from './shape-embedding-body.js';
import { toModelCards } from './model-cards.js';
import { toClientCount, toCompletionSequences, toSpendBound } from './spend-bound.js';
import type { ExecuteResult } from '../balance/balancer.js';
import type { Usage } from '../upstream/chat-chunk.js';
import { respondRouted, type AnswerShape } from './respond-routed.js';
import { shapeResponsesBody, toResponsesShape } from './responses-answer.js';
import { parseResponsesRequest, type ResponsesRequest } from './responses-request.js';
import { toChatBody } from './to-chat-body.js';
import { shapeUpstreamBody } from './shape-body.js';
import { checkBodyFields } from './body-fields.js';

export interface GatewayOptions {
  /** The routing table in force (hot reload swaps it; a request keeps the one it started with). */
  table: () => LoadedTable;
  /** The classifier for a table; built once per table load. */
  classifier: () => Classifier;
  balancer: Balancer;
  store: StateStore;
  tokenCounter: TokenCounter;
  observer: RequestObserver;
  clock: Clock;
  logger: Logger;
}

/** The stream fields both request bodies share. */
interface StreamFlags {
  [key: string]: unknown;
  stream?: boolean | null | undefined;
  stream_options?: { include_usage?: boolean | undefined } | null | undefined;
}

/** A Responses request, and the chat request it stands for (classified, limited, and sent to chat deployments). */
interface ParsedResponses extends StreamFlags {
  responses: ResponsesRequest;
  chat: ChatRequest;
}

/** Where and how a request goes upstream, when it is not its own body to every deployment. */
interface UpstreamShape {
  toPath: (deployment: DeploymentConfig) => string;
  toBody: (deployment: DeploymentConfig) => string;
  shape: AnswerShape;
}

/** What differs between the routed endpoints. */
interface Endpoint<T> {
  kind: 'chat' | 'completions' | 'embeddings' | 'responses';
  path: '/chat/completions' | '/completions' | '/embeddings' | '/responses';
  parse(body: unknown): T;
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
  decide(
    request: T,
    access: { context: RequestContext; loaded: LoadedTable; key: ApiKeyConfig | undefined },
  ): Promise<RouteDecision>;
  /** Per-deployment path, body and answer shape; @default the request's own body, as a chat or legacy completion */
  toUpstream?(request: T, input: { decision: RouteDecision; context: RequestContext }): UpstreamShape;
}

export function createGateway(options: GatewayOptions): Gateway {
  const { clock, store } = options;
  const checker = createAvailabilityChecker();
  const limiter = createKeyLimiter({ store, clock });
  const keyIndexes = new WeakMap<LoadedTable, KeyIndex>();
  const keyIndex = (loaded: LoadedTable): KeyIndex => {
    let index = keyIndexes.get(loaded);
    if (index === undefined) {
      // each key carries the table's concurrency caps where it sets none of its own
      index = toKeyIndex(loaded.table.api_keys.map((key) => withKeyLimits(key, loaded.table.key_limits)));
      keyIndexes.set(loaded, index);
    }
    return index;
  };
  const compiledRules = new WeakMap<LoadedTable, readonly TableRule[]>();
  /** The table's `classifier.rules`, compiled on the first request after a load. */
  const tableRules = (loaded: LoadedTable): readonly TableRule[] => {
    let rules = compiledRules.get(loaded);
    if (rules === undefined) {
      rules = compileTableRules(loaded.table.classifier.rules);
      compiledRules.set(loaded, rules);
    }
    return rules;
  };

  async function decide(
    request: ChatRequest,
    context: RequestContext,
    access: { loaded: LoadedTable; key: ApiKeyConfig | undefined },
  ): Promise<RouteDecision> {
    const { table } = access.loaded;
    const { key } = access;
    const userKey = table.sessions.key === 'header_or_user' ? (request.user ?? undefined) : undefined;
    return decideRoute({
      table,
      classifier: options.classifier(),
      tableRules: tableRules(access.loaded),
      tokenCounter: options.tokenCounter,
      checker,
      store,
      now: clock.now(),
      hints: {
        minTier: context.hints.minTier,
        sessionKey: toSessionKey({ keyName: key?.name, sessionId: context.hints.sessionKey ?? userKey }),
      },
      overridesDisabledBy: toOverridesDisabledBy(table, key),
      allowed: key === undefined ? undefined : { tiers: key.tiers, models: key.models, keyName: key.name },
      cacheScope: key?.sha256,
      request: {
        model: request.model,
        messages: request.messages,
        tools: request.tools ?? null,
        maxTokens: request.max_tokens ?? request.max_completion_tokens ?? undefined,
      },
      signal: context.signal,
      ...(context.trace === undefined ? {} : { span: context.trace }),
    });
  }

  /**
   * Takes one of the key's concurrent-request slots, then admits its tokens (admitDecision); `finish`
   * frees both.
   */
  async function admitKey(
    key: ApiKeyConfig,
    admitted: { decision: RouteDecision; stream: boolean; sequences: number },
  ): Promise<KeyAdmission> {
    const release = await acquireRequestSlot(store, { key, ttlMs: admitted.decision.plan.timeouts.total_ms });
    const tokens = await admitDecision(key, admitted).catch(async (error: unknown) => {
      await release();
      throw error;
    });
    return {
      async finish(spent) {
        await release();
        await tokens.finish(spent);
      },
    };
  }

  /** Books the classifier call, then reserves the most the request can spend on the key's limits. */
  async function admitDecision(
    key: ApiKeyConfig,
    admitted: { decision: RouteDecision; stream: boolean; sequences: number },
  ): Promise<KeyAdmission> {
    const { decision } = admitted;
    await limiter.bookTokens(key, decision.classification?.llmTokens ?? 0);
    const bound = toSpendBound(decision, admitted.sequences);
    return limiter.admitTokens(key, {
      promptTokens: bound.promptTokens,
      maxCompletionTokens: bound.completionTokens,
      stream: admitted.stream,
      totalMs: decision.plan.timeouts.total_ms,
    });
  }

  async function recordSession(decision: RouteDecision, loaded: LoadedTable): Promise<void> {
    const key = decision.sessionKey;
    if (decision.sessionTier === undefined || key === undefined || !loaded.table.sessions.enabled) return;
    await store.raiseSessionTier({
      key,
      rank: toTierRank(decision.sessionTier),
      ttlMs: loaded.table.sessions.window_minutes * 60_000,
    });
  }

  /**
   * The one path of every routed request: authenticate, parse, rate-limit, decide, admit tokens, run the
   * balancer and answer; the tracker reports the request once, whatever happens.
   */
  async function serve<T extends StreamFlags>(
    endpoint: Endpoint<T>,
    input: { body: unknown; context: RequestContext },
  ): Promise<GatewayResponse> {
    const { body, context } = input;
    const stream =
      typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
    const tracker = createRequestTracker({
      observer: options.observer,
      clock,
      requestId: context.requestId,
      clientRequestId: context.clientRequestId,
      endpoint: endpoint.kind,
      http: context.http,
      stream,
      startedAt: context.receivedAt,
      span: context.trace,
    });
    let admission: KeyAdmission | undefined;
    try {
      const loaded = options.table();
      const key = authenticate(keyIndex(loaded), context.credentials);
      tracker.setKey(key?.name);
      checkBodyFields(body, endpoint.kind, loaded.table.client_fields);
      const request = endpoint.parse(body);
      if (context.trace?.recording === true)
        context.trace.setAttributes(toRequestAttributes(endpoint.path, request));
      if (loaded.table.log_content) tracker.setPrompt(endpoint.toPrompt(request));
      if (key !== undefined) await limiter.admitRequest(key);
      const decision = await endpoint.decide(request, { context, loaded, key });
      tracker.setDecision(decision);
      admission =
        key === undefined
          ? undefined
          : await admitKey(key, { decision, stream, sequences: endpoint.sequences(request) });
      const upstream = endpoint.toUpstream?.(request, { decision, context });
      const routed = {
        balancer: options.balancer,
        clock,
        decision,
        context,
        tracker,
        path: endpoint.path,
        toPath: upstream?.toPath,
        kind: endpoint.kind,
        shape: upstream?.shape,
        stream,
        includeUsage: request.stream_options?.include_usage === true,
        toBody:
          endpoint.toBody?.(request, decision) ??
          upstream?.toBody ??
          ((deployment) =>
            shapeUpstreamBody({
              body: request,
              deployment,
              tierConfig: decision.tierConfig,
              maxTokens: decision.maxTokens,
            })),
        toContinuationBody: endpoint.toContinuationBody?.(request, decision),
        ...(endpoint.toAnswer === undefined ? {} : { toAnswer: endpoint.toAnswer(request) }),
        onCommitted: () =>
          endpoint.kind === 'chat' || endpoint.kind === 'responses'
            ? recordSession(decision, loaded)
            : Promise.resolve(),
        revealInternal: key === undefined || key.admin,
      };
      // from here respondRouted finishes the admission on every path
      const owned = admission;
      admission = undefined;
      return await respondRouted({ ...routed, admission: owned });
    } catch (thrown) {
      // a failure between admission and the balancer still frees the key's slots and reservation
      if (admission !== undefined) void admission.finish({ promptTokens: 0, completionTokens: 0 });
      // stopped by the drain: whatever gave way first (a count, a backoff), the request ends SHUTTING_DOWN
      const error = toShutdownReason(context.signal) ?? thrown;
      tracker.end({
        status: error instanceof RouterError ? error.status : 500,
        usage: undefined,
        generatedChars: 0,
        error,
      });
      throw error;
    }
  }

  const chatEndpoint: Endpoint<ChatRequest> = {
    kind: 'chat',
    path: '/chat/completions',
    parse: (body) => parseBody(chatRequestSchema, body) as ChatRequest,
    sequences: (request) => request.n ?? 1,
    toPrompt: (request) => toPromptText(request.messages),
    toContinuationBody: (request, decision) =>
      toContinuationBodyMaker({ request, tierConfig: decision.tierConfig, maxTokens: decision.maxTokens }),
    decide: (request, access) => decide(request, access.context, access),
  };
  /**
   * The Responses API: classified, limited and routed as the chat request it stands for; a deployment
   * with `responses: true` gets the Responses body itself, any other the chat body. No continuation
   * after a break: a stream of typed events cannot be relabelled like chat chunks.
   */
  const responsesEndpoint: Endpoint<ParsedResponses> = {
    kind: 'responses',
    path: '/responses',
    parse: (body) => {
      const responses = parseResponsesRequest(body);
      return { responses, chat: toChatBody(responses), stream: responses.stream };
    },
    // a Responses body has no `n`; one sent anyway passes on to chat servers, which answer it
    sequences: (request) => toClientCount(request.chat['n']),
    toPrompt: (request) => toPromptText(request.chat.messages),
    decide: (request, access) => decide(request.chat, access.context, access),
    toUpstream: (request, { decision, context }) => {
      const shaped = { tierConfig: decision.tierConfig, maxTokens: decision.maxTokens };
      return {
        toPath: (deployment) => (deployment.responses ? '/responses' : '/chat/completions'),
        toBody: (deployment) =>
          deployment.responses
            ? shapeResponsesBody(Object.assign({ body: request.responses, deployment }, shaped))
            : shapeUpstreamBody(Object.assign({ body: request.chat, deployment }, shaped)),
        shape: toResponsesShape(request.responses, context.requestId),
      };
    },
  };
  const completionEndpoint: Endpoint<CompletionRequest> = {
    kind: 'completions',
    path: '/completions',
    parse: (body) => parseBody(completionRequestSchema, body),
    sequences: toCompletionSequences,
    toPrompt: (request) => (Array.isArray(request.prompt) ? request.prompt.join('\n') : request.prompt),
    decide: (request, access) =>
      toCompletionDecision({
        table: access.loaded.table,
        request,
        tokenCounter: options.tokenCounter,
        checker,
        now: clock.now(),
        signal: access.context.signal,
      }),
  };

  const embeddingsEndpoint: Endpoint<EmbeddingRequest> = {
    kind: 'embeddings',
    path: '/embeddings',
    parse: (body) => parseBody(embeddingRequestSchema, body),
    sequences: () => 0,
    toPrompt: (request) => toInputParts(request.input).texts.join('\n'),
    toBody: (request, decision) => (deployment) =>
      shapeEmbeddingBody({ body: request, deployment, extraBody: decision.tierConfig.extra_body }),
    toAnswer: (request) => (result) =>
      toEmbeddingAnswer(result, {
        inputs: toInputSize(request.input).inputs,
        format: request.encoding_format ?? 'float',
      }),
    decide: (request, access) =>
      toEmbeddingsDecision({
        table: access.loaded.table,
        request,
        key: access.key,
        overridesDisabledBy: toOverridesDisabledBy(access.loaded.table, access.key),
        tokenCounter: options.tokenCounter,
        checker,
        now: clock.now(),
        signal: access.context.signal,
      }),
  };

  async function explain(body: unknown, context: RequestContext): Promise<Record<string, unknown>> {
    const loaded = options.table();
    const key = authenticate(keyIndex(loaded), context.credentials);
    checkBodyFields(body, 'chat', loaded.table.client_fields);
    const request = parseBody(chatRequestSchema, body) as ChatRequest;
    if (key !== undefined) {
      await limiter.admitRequest(key);
      await limiter.checkTokens(key);
    }
    const decision = await decide(request, context, { loaded, key });
    if (key !== undefined) await limiter.bookTokens(key, decision.classification?.llmTokens ?? 0);
    return toExplanation(decision);
  }

  function listModels(): Record<string, unknown> {
    const { table, loadedAt } = options.table();
    return { object: 'list', data: toModelCards(table, loadedAt) };
  }

  function retrieveModel(id: string): Record<string, unknown> {
    const { table, loadedAt } = options.table();
    const card = toModelCards(table, loadedAt).find((model) => model.id === id);
    if (card !== undefined) return card;
    throw new RouterError({
      code: 'MODEL_NOT_FOUND',
      message: `The model "${id.slice(0, 256)}" does not exist; GET /v1/models lists the models served here`,
      param: 'model',
    });
  }

  return {
    chatCompletion: (body, context) => serve(chatEndpoint, { body, context }),
    responses: (body, context) => serve(responsesEndpoint, { body, context }),
    completion: (body, context) => serve(completionEndpoint, { body, context }),
    embeddings: (body, context) => serve(embeddingsEndpoint, { body, context }),
    explain,
    listModels,
    retrieveModel,
    authenticate: (context) => authenticate(keyIndex(options.table()), context.credentials),
  };
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
    reason: classification?.reason ?? null,
    prompt_tokens: decision.promptTokens,
    prompt_tokens_estimated: decision.promptTokensEstimated,
    max_tokens: decision.maxTokens,
    rules: decision.rules,
    deployments: [...plan.group, ...plan.fallback].map((deployment) => deployment.id),
    group: plan.group.map((deployment) => deployment.id),
    fallback: plan.fallback.map((deployment) => deployment.id),
    strategy: plan.strategy,
    timeouts: plan.timeouts,
  };
}

/** The last user message's text, for content logging only. */
function toPromptText(messages: readonly ChatMessage[]): string {
  const last = [...messages].reverse().find((message) => message.role === 'user');
  return last === undefined ? '' : toMessageText(last.content);
}
