import { chatRequestSchema, parseBody, type ChatRequest } from '../gateway/chat-request.js';
import { toContinuationBodyMaker } from '../gateway/continuation-body.js';
import { toPromptText } from '../gateway/prompt-text.js';
import type { RoutedEndpoint } from '../gateway/routed-endpoint.js';
import type { EndpointModule } from './endpoint.js';

/** Chat completions: classified, routed to a tier, continued on another deployment after a break. */
const chatCall: RoutedEndpoint<ChatRequest> = {
  kind: 'chat',
  raisesSessionTier: true,
  parse: (body) => parseBody(chatRequestSchema, body) as ChatRequest,
  sequences: (request) => request.n ?? 1,
  toPrompt: (request) => toPromptText(request.messages),
  toContinuationBody: (request, decision) =>
    toContinuationBodyMaker({ request, tierConfig: decision.tierConfig, maxTokens: decision.maxTokens }),
  decide: (request, access) => access.parts.decideChat(request, access),
};

export const chat = {
  method: 'POST',
  path: '/v1/chat/completions',
  name: 'chat',
  access: 'key',
  body: 'chat',
  upstream: 'chat',
  reportsItself: true,
  handle: ({ body, context, key }, { gateway }) => gateway.serve(chatCall, { body, context, key }),
} as const satisfies EndpointModule;
