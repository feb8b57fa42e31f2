import { toChatDeployments, toEmbeddingDeployments } from '../config/deployment-kinds.js';
import type { RoutingTable } from '../config/routing-table-schema.js';
import { TIERS } from '../shared/tier.js';

/** One entry of GET /v1/models, as OpenAI's Model object. */
export interface ModelCard {
  [key: string]: unknown;
  id: string;
  object: 'model';
  /** Epoch seconds: when the routing table was loaded. */
  created: number;
  owned_by: 'autotier';
}

/**
 * The models a client may name: `auto`, the tier aliases, the served chat models, and the embedding
 * models of the embeddings group (GET /v1/models and GET /v1/models/{id} read the same list).
 */
export function toModelCards(table: RoutingTable, loadedAt: number): ModelCard[] {
  const created = Math.floor(loadedAt / 1000);
  const embeddingIds = new Set([...(table.embeddings?.group ?? []), ...(table.embeddings?.fallback ?? [])]);
  const names = [
    'auto',
    ...TIERS.map((tier) => `tier:${tier}`),
    ...toChatDeployments(table.deployments).map((deployment) => deployment.model),
    ...toEmbeddingDeployments(table.deployments)
      .filter((deployment) => embeddingIds.has(deployment.id))
      .map((deployment) => deployment.model),
  ];
  return [...new Set(names)].map((id) => ({ id, object: 'model', created, owned_by: 'autotier' }));
}
