import { completionRequestSchema, parseBody, type CompletionRequest } from '../gateway/chat-request.js';
import { toCompletionDecision } from '../gateway/completion-route.js';
import type { RoutedEndpoint } from '../gateway/routed-endpoint.js';
import { toCompletionSequences } from '../gateway/spend-bound.js';
import type { EndpointModule } from './endpoint.js';

/** Legacy completions (IDE autocomplete): the autocomplete group, no classification. */
const completionsCall: RoutedEndpoint<CompletionRequest> = {
  kind: 'completions',
  raisesSessionTier: false,
  parse: (body) => parseBody(completionRequestSchema, body),
  sequences: toCompletionSequences,
  toPrompt: (request) => (Array.isArray(request.prompt) ? request.prompt.join('\n') : request.prompt),
  decide: (request, { loaded, context, parts }) =>
    toCompletionDecision({
      table: loaded.table,
      request,
      tokenCounter: parts.tokenCounter,
      checker: parts.checker,
      now: parts.now(),
      signal: context.signal,
    }),
};

export const completions = {
  method: 'POST',
  path: '/v1/completions',
  name: 'completions',
  access: 'key',
  body: 'completions',
  upstream: 'completions',
  reportsItself: true,
  handle: ({ body, context, key }, { gateway }) => gateway.serve(completionsCall, { body, context, key }),
} as const satisfies EndpointModule;
