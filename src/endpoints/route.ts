import type { RouteDecision } from '../routing/decide-route.js';
import { chatCall } from './chat.js';
import { jsonAnswer, type EndpointModule } from './endpoint.js';

/**
 * POST /v1/route: the decision for a chat request, without calling any backend. It counts against the
 * key's requests per minute, needs room in its tokens, and books the classifier's tokens.
 */
export const route = {
  method: 'POST',
  path: '/v1/route',
  name: 'route',
  access: 'key',
  body: 'chat',
  upstream: 'none',
  handle: async ({ exchange }, { gateway }) =>
    jsonAnswer(200, toExplanation(await gateway.explain(chatCall, exchange))),
} as const satisfies EndpointModule;

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
