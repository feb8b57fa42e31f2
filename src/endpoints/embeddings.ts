import { parseBody } from '../gateway/chat-request.js';
import { toEmbeddingAnswer } from '../gateway/embedding-answer.js';
import {
  embeddingRequestSchema,
  toInputParts,
  toInputSize,
  type EmbeddingRequest,
} from '../gateway/embedding-request.js';
import { toEmbeddingsDecision } from '../gateway/embeddings-route.js';
import type { RoutedEndpoint } from '../gateway/routed-endpoint.js';
import { shapeEmbeddingBody } from '../gateway/shape-embedding-body.js';
import { toOverridesDisabledBy } from '../policy/client-overrides.js';
import { need } from '../gateway/exchange.js';
import type { EndpointModule } from './endpoint.js';

/** Embeddings: the table's embeddings group, no classification, one JSON answer. */
const embeddingsCall: RoutedEndpoint<EmbeddingRequest> = {
  kind: 'embeddings',
  raisesSessionTier: false,
  parse: (body) => parseBody(embeddingRequestSchema, body),
  sequences: () => 0,
  toPrompt: (request) => toInputParts(request.input).texts.join('\n'),
  toBody: (request, decision) => (deployment) =>
    shapeEmbeddingBody({ body: request, deployment, extraBody: decision.tierConfig.extra_body }),
  toAnswer: (request) => (result) =>
    toEmbeddingAnswer(result, {
      inputs: toInputSize(request.input).inputs,
      format: request.encoding_format ?? 'float',
    }),
  plan: (request, exchange, parts) => {
    const { table } = need(exchange.loaded, 'loaded', 'plan');
    return toEmbeddingsDecision({
      table,
      request,
      key: exchange.key,
      overridesDisabledBy: toOverridesDisabledBy(table, exchange.key),
      tokenCounter: parts.tokenCounter,
      checker: parts.checker,
      now: parts.now(),
      signal: exchange.signal,
    });
  },
};

export const embeddings = {
  method: 'POST',
  path: '/v1/embeddings',
  name: 'embeddings',
  access: 'key',
  body: 'embeddings',
  upstream: 'embeddings',
  handle: ({ exchange }, { gateway }) => gateway.serve(embeddingsCall, exchange),
} as const satisfies EndpointModule;
