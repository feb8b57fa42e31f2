import type { ChatRequest } from '../gateway/chat-request.js';
import { toPromptText } from '../gateway/prompt-text.js';
import { shapeResponsesBody, toResponsesShape } from '../gateway/responses-answer.js';
import { parseResponsesRequest, type ResponsesRequest } from '../gateway/responses-request.js';
import type { RoutedEndpoint, StreamFlags } from '../gateway/routed-endpoint.js';
import { shapeUpstreamBody } from '../gateway/shape-body.js';
import { toClientCount } from '../gateway/spend-bound.js';
import { toChatBody } from '../gateway/to-chat-body.js';
import { need } from '../gateway/exchange.js';
import { classifyRoute, planClassified } from '../routing/decide-route.js';
import type { EndpointModule } from './endpoint.js';

/** A Responses request, and the chat request it stands for (classified, limited, and sent to chat deployments). */
interface ParsedResponses extends StreamFlags {
  responses: ResponsesRequest;
  chat: ChatRequest;
}

/**
 * The Responses API: classified, limited and routed as the chat request it stands for; a deployment
 * with `responses: true` gets the Responses body itself, any other the chat body. No continuation
 * after a break: a stream of typed events cannot be relabelled like chat chunks.
 */
const responsesCall: RoutedEndpoint<ParsedResponses> = {
  kind: 'responses',
  raisesSessionTier: true,
  parse: (body) => {
    const responses = parseResponsesRequest(body);
    return { responses, chat: toChatBody(responses), stream: responses.stream };
  },
  // a Responses body has no `n`; one sent anyway passes on to chat servers, which answer it
  sequences: (request) => toClientCount(request.chat['n']),
  toPrompt: (request) => toPromptText(request.chat.messages),
  classify: (request, exchange, parts) => classifyRoute(parts.toChatDecideInput(request.chat, exchange)),
  plan: (request, exchange, parts) =>
    planClassified(
      parts.toChatDecideInput(request.chat, exchange),
      need(exchange.classified, 'classified', 'plan'),
    ),
  toPath: (deployment) => (deployment.responses ? '/responses' : '/chat/completions'),
  toBody: (request, decision) => {
    const shaped = { tierConfig: decision.tierConfig, maxTokens: decision.maxTokens };
    return (deployment) =>
      deployment.responses
        ? shapeResponsesBody(Object.assign({ body: request.responses, deployment }, shaped))
        : shapeUpstreamBody(Object.assign({ body: request.chat, deployment }, shaped));
  },
  toShape: (request, exchange) => toResponsesShape(request.responses, exchange.requestId),
};

export const responses = {
  method: 'POST',
  path: '/v1/responses',
  name: 'responses',
  access: 'key',
  body: 'responses',
  upstream: 'responses',
  handle: ({ exchange }, { gateway }) => gateway.serve(responsesCall, exchange),
} as const satisfies EndpointModule;
