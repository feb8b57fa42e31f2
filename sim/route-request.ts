import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BackendContext } from './backend-context.js';
import {
  CHAT_ENDPOINT,
  COMPLETION_ENDPOINT,
  RESPONSES_ENDPOINT,
  type GenerationEndpoint,
} from './generation-endpoints.js';
import { handleEmbeddings } from './handle-embeddings.js';
import { handleGeneration } from './handle-generation.js';
import { applyServerDownFault } from './request-faults.js';
import { sendJson } from './respond.js';

export interface Routes {
  backend: BackendContext;
  /** The pre-built `/v1/models` body. */
  modelsBody: string;
}

const GENERATION: Record<string, GenerationEndpoint> = {
  '/v1/chat/completions': CHAT_ENDPOINT,
  '/v1/completions': COMPLETION_ENDPOINT,
  '/v1/responses': RESPONSES_ENDPOINT,
};

/** Counts the request, tracks it in flight until its response closes, and dispatches it. */
export function routeRequest(routes: Routes, request: IncomingMessage, response: ServerResponse): void {
  const { stats } = routes.backend;
  const url = request.url ?? '/';
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  const found = request.method === 'POST' ? GENERATION[path] : undefined;
  // a backend without the Responses API answers its path 404, like a server that lacks it
  const endpoint = found === RESPONSES_ENDPOINT && !routes.backend.responses ? undefined : found;
  const embeddings = request.method === 'POST' && path === '/v1/embeddings';
  stats.countRequest(embeddings ? 'embedding' : (endpoint?.kind ?? 'other'));
  stats.requestStarted();
  const controller = new AbortController();
  response.once('close', () => {
    stats.requestEnded();
    controller.abort();
  });
  if (endpoint !== undefined) {
    const exchange = { request, response, signal: controller.signal };
    handleGeneration(routes.backend, endpoint, exchange).catch(() => response.destroy());
    return;
  }
  if (embeddings && routes.backend.embedding !== undefined) {
    const exchange = { request, response, signal: controller.signal };
    handleEmbeddings(routes.backend, exchange).catch(() => response.destroy());
    return;
  }
  routeOther(routes, { request, response, path });
}

interface OtherRequest {
  request: IncomingMessage;
  response: ServerResponse;
  path: string;
}

/**
 * `/health` (200, empty body), `/v1/models`, else FastAPI's 404 body; a backend-wide fault that
 * means "server down" strikes these too (request-faults.ts `applyServerDownFault`).
 */
function routeOther(routes: Routes, { request, response, path }: OtherRequest): void {
  request.resume();
  const { fault } = routes.backend.settings();
  if (fault !== undefined && applyServerDownFault(response, fault)) {
    routes.backend.stats.countFault(fault.name);
    return;
  }
  if (request.method === 'GET' && path === '/health') {
    response.writeHead(200);
    response.end();
    return;
  }
  if (request.method === 'GET' && path === '/v1/models') {
    sendJson(response, 200, routes.modelsBody);
    return;
  }
  sendJson(response, 404, '{"detail":"Not Found"}');
}

/** vLLM's ModelList: one ModelCard per served name, owned by "vllm", with `max_model_len`. */
export function toModelsBody(models: readonly string[], contextWindow: number, created: number): string {
  const data = models.map((model) => ({
    id: model,
    object: 'model',
    created,
    owned_by: 'vllm',
    root: model,
    parent: null,
    max_model_len: contextWindow,
    permission: [],
  }));
  return JSON.stringify({ object: 'list', data });
}
