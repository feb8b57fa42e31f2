import type { DeploymentConfig, TableTier } from '../config/table-part-schemas.js';
import { toChatDeployments } from '../config/deployment-kinds.js';
import type { RoutingTable } from '../config/routing-table-schema.js';
import { RouterError } from '../shared/errors.js';
import { TIERS, toTierRank, type Tier } from '../shared/tier.js';

/** What an API key may reach; undefined fields allow everything. */
export interface KeyAccess {
  keyName: string;
  /** Tiers of the table (VISION included) the key may use. */
  tiers?: readonly TableTier[] | undefined;
  /** Served model names the key may ask for by name. */
  models?: readonly string[] | undefined;
}

export function allowsTier(access: KeyAccess | undefined, tier: TableTier): boolean {
  return access?.tiers === undefined || access.tiers.includes(tier);
}

export function toForbidden(message: string, param = 'model'): RouterError {
  return new RouterError({ code: 'FORBIDDEN', message, param });
}

/** The tiers whose group (or off-hours group) holds a deployment. */
function toServingTiers(table: RoutingTable, deployment: DeploymentConfig): TableTier[] {
  const tiers: TableTier[] = [];
  for (const name of [...TIERS, 'VISION'] as const) {
    const tier = table.tiers[name];
    if (tier === undefined) continue;
    if (tier.group.includes(deployment.id) || (tier.off_hours?.group.includes(deployment.id) ?? false))
      tiers.push(name);
  }
  return tiers;
}

/**
 * The deployments a request naming a served model (or a deployment id) may use: for a key with a
 * tier list, only those in the group of a tier the key may use. A deployment that serves only as a
 * fallback belongs to no tier of its own and needs a key without a tier list.
 * Throws FORBIDDEN naming the tiers that serve the model when none is left.
 */
export function toNamedDeployments(input: {
  table: RoutingTable;
  access: KeyAccess | undefined;
  model: string;
}): DeploymentConfig[] {
  const { table, access, model } = input;
  const serving = toChatDeployments(table.deployments).filter(
    (deployment) => deployment.model === model || deployment.id === model,
  );
  if (access === undefined) return serving;
  if (access.models !== undefined && !serving.some((deployment) => access.models?.includes(deployment.model)))
    throw toForbidden(`key ${access.keyName} may not use model ${model}`);
  if (access.tiers === undefined) return serving;
  const allowed = serving.filter((deployment) =>
    toServingTiers(table, deployment).some((tier) => allowsTier(access, tier)),
  );
  if (allowed.length > 0) return allowed;
  const tiers = [...new Set(serving.flatMap((deployment) => toServingTiers(table, deployment)))];
  const served = tiers.length === 0 ? 'only as a fallback' : `in tier ${tiers.join(', ')}`;
  throw toForbidden(
    `key ${access.keyName} may not use model ${model}: it serves ${served}, and the key may use ${access.tiers.join(', ')}`,
  );
}

/**
 * Caps an `auto` decision at the highest complexity tier the key may use (the lowest allowed one if
 * none is below). Returns the tier and whether it was capped.
 */
export function capTierToKey(access: KeyAccess | undefined, tier: Tier): Tier {
  const tiers = access?.tiers;
  if (tiers === undefined || tiers.includes(tier)) return tier;
  const allowed = TIERS.filter((candidate) => tiers.includes(candidate));
  const below = allowed.filter((candidate) => toTierRank(candidate) <= toTierRank(tier));
  return below.at(-1) ?? allowed[0] ?? tier;
}
