import type { GatewayParts } from '../gateway/routed-endpoint.js';
import { toModelCards } from '../gateway/model-cards.js';
import { RouterError } from '../shared/errors.js';
import { jsonAnswer, type EndpointModule } from './endpoint.js';
import { MODELS_PREFIX, toModelId } from './model-id.js';

function listModels(parts: GatewayParts): Record<string, unknown> {
  const { table, loadedAt } = parts.table();
  return { object: 'list', data: toModelCards(table, loadedAt) };
}

/** The model card of `auto`, a tier alias or a served model; 404 otherwise. */
function retrieveModel(parts: GatewayParts, id: string): Record<string, unknown> {
  const { table, loadedAt } = parts.table();
  const card = toModelCards(table, loadedAt).find((model) => model.id === id);
  if (card !== undefined) return card;
  throw new RouterError({
    code: 'MODEL_NOT_FOUND',
    message: `The model "${id.slice(0, 256)}" does not exist; GET /v1/models lists the models served here`,
    param: 'model',
  });
}

/** GET /v1/models: `auto`, the tier aliases and every served model name (chat and embedding). */
export const models = {
  method: 'GET',
  path: '/v1/models',
  name: 'models',
  access: 'key',
  body: 'none',
  upstream: 'none',
  handle: (_input, { gateway }) => jsonAnswer(200, listModels(gateway.parts)),
} as const satisfies EndpointModule;

/** GET /v1/models/{id}: the id may contain slashes, raw or percent-encoded. */
export const model = {
  method: 'GET',
  path: MODELS_PREFIX,
  prefix: true,
  name: 'models',
  access: 'key',
  body: 'none',
  upstream: 'none',
  handle: ({ exchange }, { gateway }) =>
    jsonAnswer(200, retrieveModel(gateway.parts, toModelId(exchange.http.path))),
} as const satisfies EndpointModule;
