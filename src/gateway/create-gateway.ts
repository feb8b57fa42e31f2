import type { Balancer } from '../balance/balancer.js';
import type { Classifier } from '../classify/decision.js';
import { compileTableRules } from '../classify/table-rules.js';
import type { LoadedTable } from '../config/load-routing-table.js';
import type { ApiKeyConfig } from '../config/table-part-schemas.js';
import type { Logger } from '../shared/logger.js';
import type { RequestObserver } from '../observe/request-summary.js';
import {
  authenticate,
  createKeyLimiter,
  revealsInternal,
  toKeyIndex,
  type KeyAdmission,
} from '../policy/api-keys.js';
import { withKeyLimits } from '../policy/key-concurrency.js';
import { toOverridesDisabledBy } from '../policy/client-overrides.js';
import { createAvailabilityChecker } from '../policy/availability.js';
import { toSessionKey } from '../policy/session-key.js';
import type { TokenCounter } from '../policy/token-counter.js';
import type { Clock } from '../shared/clock.js';
import { RouterError, toShutdownReason } from '../shared/errors.js';
import { toTierRank } from '../shared/tier.js';
import type { StateStore } from '../state/state-store.js';
import type { ChatRequest } from './chat-request.js';
import { decideRoute, type RouteDecision } from '../routing/decide-route.js';
import { createRequestTracker } from './request-tracker.js';
import { toRequestAttributes } from './request-span-attributes.js';
import type { GatewayResponse, RequestContext } from './gateway.js';
import { admitKey } from './admit-key.js';
import { perTable } from './per-table.js';
import { respondRouted } from './respond-routed.js';
import type { Gateway, GatewayParts, RoutedEndpoint, StreamFlags } from './routed-endpoint.js';
import { shapeUpstreamBody } from './shape-body.js';
import { checkBodyFields } from './body-fields.js';
import { UPSTREAM_PATHS } from './upstream-call.js';

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

export function createGateway(options: GatewayOptions): Gateway {
  const { clock, store } = options;
  const checker = createAvailabilityChecker();
  const limiter = createKeyLimiter({ store, clock });
  // each key carries the table's concurrency caps where it sets none of its own
  const keyIndex = perTable((loaded) =>
    toKeyIndex(loaded.table.api_keys.map((key) => withKeyLimits(key, loaded.table.key_limits))),
  );
  /** The table's `classifier.rules`, compiled on the first request after a load. */
  const tableRules = perTable((loaded) => compileTableRules(loaded.table.classifier.rules));

  async function decideChat(
    request: ChatRequest,
    access: { context: RequestContext; loaded: LoadedTable; key: ApiKeyConfig | undefined },
  ): Promise<RouteDecision> {
    const { table } = access.loaded;
    const { key, context } = access;
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
    endpoint: RoutedEndpoint<T>,
    input: { body: unknown; context: RequestContext; key: ApiKeyConfig | undefined },
  ): Promise<GatewayResponse> {
    const { body, context, key } = input;
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
      tracker.setKey(key?.name);
      checkBodyFields(body, endpoint.kind, loaded.table.client_fields);
      const request = endpoint.parse(body);
      if (context.trace?.recording === true)
        context.trace.setAttributes(toRequestAttributes(UPSTREAM_PATHS[endpoint.kind], request));
      if (loaded.table.log_content) tracker.setPrompt(endpoint.toPrompt(request));
      if (key !== undefined) await limiter.admitRequest(key);
      const decision = await endpoint.decide(request, { context, loaded, key, parts });
      tracker.setDecision(decision);
      admission =
        key === undefined
          ? undefined
          : await admitKey({ store, limiter }, key, {
              decision,
              stream,
              sequences: endpoint.sequences(request),
            });
      const upstream = endpoint.toUpstream?.(request, { decision, context });
      const routed = {
        balancer: options.balancer,
        clock,
        decision,
        context,
        tracker,
        path: UPSTREAM_PATHS[endpoint.kind],
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
        onCommitted: () => (endpoint.raisesSessionTier ? recordSession(decision, loaded) : Promise.resolve()),
        revealInternal: revealsInternal(key, 'key'),
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

  const parts: GatewayParts = {
    table: options.table,
    limiter,
    checker,
    tokenCounter: options.tokenCounter,
    now: () => clock.now(),
    decideChat,
  };

  return {
    serve: (endpoint, input) => serve(endpoint, input),
    parts,
    authenticate: (context) => authenticate(keyIndex(options.table()), context.credentials),
  };
}
