import type { DeploymentConfig } from '../config/table-part-schemas.js';
import type { RoutePlan } from './route-plan.js';

/** A deployment a request may be sent to, in try order. */
export interface Candidate {
  deployment: DeploymentConfig;
  fallback: boolean;
  /**
   * Deployments that could take the request instead: the group's size for a group member, every
   * candidate for a fallback. A 429 does not bench a deployment that has no alternative.
   */
  groupSize: number;
}

/**
 * The try order of one request: the group in `order` (ids from `orderGroup`; unknown ids dropped),
 * then the quality-ordered fallback chain without the deployments already in the group.
 */
export function toCandidates(plan: RoutePlan, order: readonly string[]): Candidate[] {
  const byId = new Map(plan.group.map((deployment) => [deployment.id, deployment]));
  const group = order
    .map((id) => byId.get(id))
    .filter((value): value is DeploymentConfig => value !== undefined);
  const seen = new Set(group.map((deployment) => deployment.id));
  const fallback = plan.fallback.filter(
    (deployment) => !seen.has(deployment.id) && (seen.add(deployment.id), true),
  );
  return [
    ...group.map((deployment) => ({ deployment, fallback: false, groupSize: group.length })),
    ...fallback.map((deployment) => ({
      deployment,
      fallback: true,
      groupSize: group.length + fallback.length,
    })),
  ];
}
