import { completionRequestSchema, parseBody, type CompletionRequest } from '../gateway/chat-request.js';
import { toCompletionDecision } from '../gateway/completion-route.js';
import type { RoutedEndpoint } from '../gateway/routed-endpoint.js';
import { toCompletionSequences } from '../gateway/spend-bound.js';
import { need } from '../gateway/exchange.js';
import type { EndpointModule } from './endpoint.js';

/** Legacy completions (IDE autocomplete): the autocomplete group, no classification. */
const completionsCall: RoutedEndpoint<CompletionRequest> = {
  kind: 'completions',
  raisesSessionTier: false,
  parse: (body) => parseBody(completionRequestSchema, body),
  sequences: toCompletionSequences,
  toPrompt: (request) => (Array.isArray(request.prompt) ? request.prompt.join('\n') : request.prompt),
  plan: (request, exchange, parts) =>
    toCompletionDecision({
      table: need(exchange.loaded, 'loaded', 'plan').table,
      request,
      tokenCounter: parts.tokenCounter,
      checker: parts.checker,
      now: parts.now(),
      signal: exchange.signal,
    }),
};

export const completions = {
  method: 'POST',
  path: '/v1/completions',
  name: 'completions',
  access: 'key',
  body: 'completions',
  upstream: 'completions',
  handle: ({ exchange }, { gateway }) => gateway.serve(completionsCall, exchange),
} as const satisfies EndpointModule;
