import type { DeploymentConfig } from '../config/table-part-schemas.js';

/**
 * What a routing table says about where its deployments live, as text an error may carry: each base
 * URL, its `host:port` and its host name. Non-admin keys see these masked (RouterError.internalNames).
 * Longest first, so a base URL is masked whole before its host name is.
 */
export function toInternalNames(deployments: readonly DeploymentConfig[]): readonly string[] {
  const names = new Set<string>();
  for (const deployment of deployments) {
    names.add(deployment.base_url);
    try {
      const url = new URL(deployment.base_url);
      names.add(url.host);
      names.add(url.hostname);
    } catch {
      // the table schema checked the URL; nothing more to hide if it cannot be parsed here
    }
  }
  return [...names].sort((a, b) => b.length - a.length);
}
