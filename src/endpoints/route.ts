import type { ApiKeyConfig } from '../config/table-part-schemas.js';
import { checkBodyFields } from '../gateway/body-fields.js';
import { chatRequestSchema, parseBody, type ChatRequest } from '../gateway/chat-request.js';
import type { RequestContext } from '../gateway/gateway.js';
import type { GatewayParts } from '../gateway/routed-endpoint.js';
import type { RouteDecision } from '../routing/decide-route.js';
import { jsonAnswer, type EndpointModule } from './endpoint.js';

/**
 * The decision for a chat request, without calling any backend: counts against the key's requests
 * per minute, needs room in its tokens, and books the classifier's tokens.
 */
async function explain(
  parts: GatewayParts,
  input: { body: unknown; context: RequestContext; key: ApiKeyConfig | undefined },
): Promise<Record<string, unknown>> {
  const { body, context, key } = input;
  const loaded = parts.table();
  checkBodyFields(body, route.body, loaded.table.client_fields);
  const request = parseBody(chatRequestSchema, body) as ChatRequest;
  if (key !== undefined) {
    await parts.limiter.admitRequest(key);
    await parts.limiter.checkTokens(key);
  }
  const decision = await parts.decideChat(request, { context, loaded, key });
  if (key !== undefined) await parts.limiter.bookTokens(key, decision.classification?.llmTokens ?? 0);
  return toExplanation(decision);
}

export const route = {
  method: 'POST',
  path: '/v1/route',
  name: 'route',
  access: 'key',
  body: 'chat',
  upstream: 'none',
  handle: async ({ body, context, key }, { gateway }) =>
    jsonAnswer(200, await explain(gateway.parts, { body, context, key })),
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
