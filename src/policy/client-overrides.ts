import type { ApiKeyConfig } from '../config/table-part-schemas.js';
import type { RoutingTable } from '../config/routing-table-schema.js';
import { RouterError } from '../shared/errors.js';

/**
 * The setting that disables client overrides (a served model name, a `tier:` alias, the
 * x-autotier-min-tier header) for this request, in words for the refusal; undefined when they are
 * allowed. The table's `overrides.allow_client` is checked before the key's `allow_overrides`.
 */
export function toOverridesDisabledBy(
  table: Pick<RoutingTable, 'overrides'>,
  key: Pick<ApiKeyConfig, 'name' | 'allow_overrides'> | undefined,
): string | undefined {
  if (!table.overrides.allow_client) return 'the routing table (overrides.allow_client: false)';
  if (key?.allow_overrides === false) return `key ${key.name} (allow_overrides: false)`;
  return undefined;
}

/**
 * OVERRIDE_NOT_ALLOWED for an explicit choice the client made: refused rather than routed as `auto`,
 * so a client never gets another tier than the one it named without being told.
 */
export function toOverrideRefused(refused: {
  asked: string;
  param: string;
  disabledBy: string;
}): RouterError {
  return new RouterError({
    code: 'OVERRIDE_NOT_ALLOWED',
    message: `${refused.asked} refused: client overrides are disabled by ${refused.disabledBy}; send model "auto" without x-autotier-min-tier`,
    param: refused.param,
  });
}
