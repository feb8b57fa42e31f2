import type { Balancer } from '../../balance/balancer.js';
import type { LoadedTable } from '../../config/load-routing-table.js';
import type { RouteDecision } from '../../routing/decide-route.js';
import { need } from '../exchange.js';
import type { RoutedEndpoint, StreamFlags } from '../routed-endpoint.js';
import { shapeUpstreamBody } from '../shape-body.js';
import type { Stage } from '../stages.js';
import { UPSTREAM_PATHS } from '../upstream-call.js';

/**
 * Runs the balancer on the plan (attempts, retries, cooldowns and the fallback chain:
 * src/balance/attempt-loop.ts) until an answer commits: its first content for a stream, all of it
 * otherwise. A committed chat answer then raises the session's tier ladder (`onCommitted`).
 */
export function balanceStage<T extends StreamFlags>(
  endpoint: RoutedEndpoint<T>,
  services: {
    balancer: Balancer;
    onCommitted: (decision: RouteDecision, loaded: LoadedTable) => Promise<void>;
  },
): Stage<T> {
  const path = UPSTREAM_PATHS[endpoint.kind];
  return {
    name: 'balance',
    async run(exchange) {
      const request = need(exchange.request, 'request', 'balance');
      const decision = need(exchange.decision, 'decision', 'balance');
      const toContinuationBody = endpoint.toContinuationBody?.(request, decision);
      exchange.result = await services.balancer.execute({
        plan: decision.plan,
        path,
        ...(endpoint.toPath === undefined ? {} : { toPath: endpoint.toPath }),
        toBody:
          endpoint.toBody?.(request, decision) ??
          ((deployment) =>
            shapeUpstreamBody({
              body: request,
              deployment,
              tierConfig: decision.tierConfig,
              maxTokens: decision.maxTokens,
            })),
        signal: exchange.signal,
        requestId: exchange.requestId,
        commit: exchange.stream ? 'first_content' : 'complete',
        startedAt: exchange.receivedAt,
        promptTokens: decision.promptTokens,
        ...(exchange.trace === undefined ? {} : { span: exchange.trace }),
        ...(endpoint.toAnswer === undefined ? {} : { answer: 'json' as const }),
        ...(toContinuationBody === undefined ? {} : { toContinuationBody }),
      });
      if (endpoint.raisesSessionTier)
        await services.onCommitted(decision, need(exchange.loaded, 'loaded', 'balance'));
    },
  };
}
