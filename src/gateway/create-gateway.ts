import type { Balancer } from '../balance/balancer.js';
import type { Classifier } from '../classify/decision.js';
import { compileTableRules } from '../classify/table-rules.js';
import type { LoadedTable } from '../config/load-routing-table.js';
import type { Logger } from '../shared/logger.js';
import type { RequestObserver } from '../observe/request-summary.js';
import { authenticate, createKeyLimiter, toKeyIndex } from '../policy/api-keys.js';
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
import type { DecideInput, RouteDecision } from '../routing/decide-route.js';
import { need, type Exchange } from './exchange.js';
import type { GatewayResponse } from './gateway.js';
import { perTable } from './per-table.js';
import type { Gateway, GatewayParts, RoutedEndpoint, StreamFlags } from './routed-endpoint.js';
import { runStages, type Stage, type StageListener } from './stages.js';
import { admitStage } from './stages/admit.js';
import { answerStage } from './stages/answer.js';
import { balanceStage } from './stages/balance.js';
import { classifyStage } from './stages/classify.js';
import { parseStage } from './stages/parse.js';
import { planStage } from './stages/plan.js';
import { reserveStage } from './stages/reserve.js';
import { createSettle, type Settle } from './stages/settle.js';

export interface GatewayOptions {
  /** The routing table in force (hot reload swaps it; a request keeps the one it started with). */
  table: () => LoadedTable;
  /** The classifier for a table; built once per table load. */
  classifier: () => Classifier;
  balancer: Balancer;
  store: StateStore;
  tokenCounter: TokenCounter;
  /** Receives each request's summary at settle, and every stage's timing. */
  observer: RequestObserver;
  clock: Clock;
  logger: Logger;
}

/** The gateway, and the settle the edge calls for what it rejects before any stage of the gateway. */
export interface GatewayWithSettle extends Gateway {
  settle: Settle;
  /** Every stage event, for the edge's own stage (authenticate). */
  onStage: StageListener;
}

export function createGateway(options: GatewayOptions): GatewayWithSettle {
  const { clock, store, observer } = options;
  const checker = createAvailabilityChecker();
  const limiter = createKeyLimiter({ store, clock });
  // each key carries the table's concurrency caps where it sets none of its own
  const keyIndex = perTable((loaded) =>
    toKeyIndex(loaded.table.api_keys.map((key) => withKeyLimits(key, loaded.table.key_limits))),
  );
  /** The table's `classifier.rules`, compiled on the first request after a load. */
  const tableRules = perTable((loaded) => compileTableRules(loaded.table.classifier.rules));
  // the event is the observer's StageTiming as it is: no second object per stage
  const onStage: StageListener = (event) => observer.onStage?.(event);
  const settle = createSettle({ clock, observer, onStage });
  const run = { clock, onStage };

  /** One decide input per request: classify and plan read the same one (the session key is hashed once). */
  const decideInputs = new WeakMap<Exchange, DecideInput>();
  function toChatDecideInput(request: ChatRequest, exchange: Exchange): DecideInput {
    let input = decideInputs.get(exchange);
    if (input === undefined) {
      input = makeChatDecideInput(request, exchange);
      decideInputs.set(exchange, input);
    }
    return input;
  }

  function makeChatDecideInput(request: ChatRequest, exchange: Exchange): DecideInput {
    const loaded = need(exchange.loaded, 'loaded', 'classify');
    const { table } = loaded;
    const { key } = exchange;
    const userKey = table.sessions.key === 'header_or_user' ? (request.user ?? undefined) : undefined;
    return {
      table,
      classifier: options.classifier(),
      tableRules: tableRules(loaded),
      tokenCounter: options.tokenCounter,
      checker,
      store,
      now: clock.now(),
      hints: {
        minTier: exchange.hints.minTier,
        sessionKey: toSessionKey({ keyName: key?.name, sessionId: exchange.hints.sessionKey ?? userKey }),
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
      signal: exchange.signal,
      ...(exchange.trace === undefined ? {} : { span: exchange.trace }),
    };
  }

  /** After a chat answer commits: the session's ladder remembers the tier it was served at. */
  async function recordSession(decision: RouteDecision, loaded: LoadedTable): Promise<void> {
    const key = decision.sessionKey;
    if (decision.sessionTier === undefined || key === undefined || !loaded.table.sessions.enabled) return;
    await store.raiseSessionTier({
      key,
      rank: toTierRank(decision.sessionTier),
      ttlMs: loaded.table.sessions.window_minutes * 60_000,
    });
  }

  const parts: GatewayParts = {
    table: options.table,
    limiter,
    checker,
    tokenCounter: options.tokenCounter,
    now: () => clock.now(),
    toChatDecideInput,
  };

  /** parse, admit, classify (when the endpoint has one) and plan: an endpoint's stages up to its decision. */
  function toDecisionStages<T extends StreamFlags>(
    endpoint: RoutedEndpoint<T>,
    admit: { checkTokens: boolean },
  ): Stage<T>[] {
    const classify = classifyStage(endpoint, parts);
    return [
      parseStage(endpoint, options.table),
      admitStage(limiter, admit),
      ...(classify === undefined ? [] : [classify]),
      planStage(endpoint, parts),
    ];
  }

  /** A stage list per endpoint, built on its first request and kept. */
  function perEndpoint(
    build: <T extends StreamFlags>(endpoint: RoutedEndpoint<T>) => Stage<T>[],
  ): <T extends StreamFlags>(endpoint: RoutedEndpoint<T>) => readonly Stage<T>[] {
    const lists = new WeakMap<object, unknown>();
    return <T extends StreamFlags>(endpoint: RoutedEndpoint<T>): readonly Stage<T>[] => {
      const known = lists.get(endpoint) as readonly Stage<T>[] | undefined;
      if (known !== undefined) return known;
      const stages = build(endpoint);
      lists.set(endpoint, stages);
      return stages;
    };
  }

  /** A routed endpoint's whole list: up to its decision, then reserve, balance and answer. */
  const toStages = perEndpoint((endpoint) => [
    ...toDecisionStages(endpoint, { checkTokens: false }),
    reserveStage(endpoint, { store, limiter }),
    balanceStage(endpoint, { balancer: options.balancer, onCommitted: recordSession }),
    answerStage(endpoint, { clock, settle }),
  ]);

  /** /v1/route: up to the decision, and a key with no tokens left is refused (nothing is reserved). */
  const toExplainStages = perEndpoint((endpoint) => toDecisionStages(endpoint, { checkTokens: true }));

  /**
   * The one path of every routed request: its stages in order, then settle, once, whatever happens:
   * here for a JSON answer or an error, at its end for a stream.
   */
  async function serve<T extends StreamFlags>(
    endpoint: RoutedEndpoint<T>,
    exchange: Exchange,
  ): Promise<GatewayResponse> {
    const routed = exchange as Exchange<T>;
    try {
      await runStages(toStages(endpoint), routed, run);
      const answer = need(routed.answer, 'answer', 'settle');
      if (answer.kind === 'json') settle(exchange, { status: answer.status, error: undefined });
      return answer;
    } catch (thrown) {
      // stopped by the drain: whatever gave way first (a count, a backoff), the request ends SHUTTING_DOWN
      const error = toShutdownReason(exchange.signal) ?? thrown;
      settle(exchange, { status: error instanceof RouterError ? error.status : 500, error });
      throw error;
    }
  }

  /**
   * The decision an endpoint would make, without calling any backend: counts against the key's
   * requests per minute, needs room in its tokens, and books the classifier's tokens.
   */
  async function explain<T extends StreamFlags>(
    endpoint: RoutedEndpoint<T>,
    exchange: Exchange,
  ): Promise<RouteDecision> {
    const routed = exchange as Exchange<T>;
    await runStages(toExplainStages(endpoint), routed, run);
    const decision = need(routed.decision, 'decision', 'plan');
    if (exchange.key !== undefined)
      await limiter.bookTokens(exchange.key, decision.classification?.llmTokens ?? 0);
    return decision;
  }

  return {
    serve: (endpoint, exchange) => serve(endpoint, exchange),
    explain,
    parts,
    authenticate: (credentials) => authenticate(keyIndex(options.table()), credentials),
    settle,
    onStage,
  };
}
