import type { DeploymentConfig } from './table-part-schemas.js';

/** The deployments that serve chat and legacy completions (`kind: chat`): what tiers and counts consider. */
export function toChatDeployments(deployments: readonly DeploymentConfig[]): DeploymentConfig[] {
  return deployments.filter((deployment) => deployment.kind === 'chat');
}

/** The deployments that serve POST /v1/embeddings (`kind: embedding`). */
export function toEmbeddingDeployments(deployments: readonly DeploymentConfig[]): DeploymentConfig[] {
  return deployments.filter((deployment) => deployment.kind === 'embedding');
}
