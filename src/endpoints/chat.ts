import { chatRequestSchema, parseBody, type ChatRequest } from '../gateway/chat-request.js';
import { toContinuationBodyMaker } from '../gateway/continuation-body.js';
import { toPromptText } from '../gateway/prompt-text.js';
import type { RoutedEndpoint } from '../gateway/routed-endpoint.js';
import { need } from '../gateway/exchange.js';
import { classifyRoute, planClassified } from '../routing/decide-route.js';
import type { EndpointModule } from './endpoint.js';

/** Chat completions: classified, routed to a tier, continued on another deployment after a break. */
export const chatCall: RoutedEndpoint<ChatRequest> = {
  kind: 'chat',
  raisesSessionTier: true,
  parse: (body) => parseBody(chatRequestSchema, body) as ChatRequest,
  sequences: (request) => request.n ?? 1,
  toPrompt: (request) => toPromptText(request.messages),
  toContinuationBody: (request, decision) =>
    toContinuationBodyMaker({ request, tierConfig: decision.tierConfig, maxTokens: decision.maxTokens }),
  classify: (request, exchange, parts) => classifyRoute(parts.toChatDecideInput(request, exchange)),
  plan: (request, exchange, parts) =>
    planClassified(
      parts.toChatDecideInput(request, exchange),
      need(exchange.classified, 'classified', 'plan'),
    ),
};

export const chat = {
  method: 'POST',
  path: '/v1/chat/completions',
  name: 'chat',
  access: 'key',
  body: 'chat',
  upstream: 'chat',
  handle: ({ exchange }, { gateway }) => gateway.serve(chatCall, exchange),
} as const satisfies EndpointModule;
