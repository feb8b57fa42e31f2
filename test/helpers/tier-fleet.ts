import type { RoutingTableInput } from '../../src/config/routing-table-schema.js';
import type { SimBackendOptions } from '../../sim/index.js';

/** Timeouts short enough for tests, long enough for a loaded machine, ms. */
export const TIER_FLEET_TIMEOUTS = { connect_ms: 1000, ttft_ms: 3000, idle_ms: 3000, total_ms: 10_000 };

const IDS = ['classifier', 'small', 'medium', 'large', 'huge'];

/** One simulated backend per tier, and one for the classifier model; each serves its id as model. */
export const TIER_FLEET_BACKENDS: SimBackendOptions[] = IDS.map((id) => ({ id, models: [id] }));

/**
 * A table with one deployment per tier (small, medium, large, huge: SIMPLE..EXPERT), the `classifier`
 * deployment, and the given `classifier` section: which tier a request got shows as its deployment.
 */
export function tierFleetTable(
  urls: Record<string, string>,
  classifier: RoutingTableInput['classifier'],
): RoutingTableInput {
  const deployment = (id: string) => ({ id, model: id, base_url: urls[id] ?? '', context_window: 32768 });
  const tier = (id: string) => ({
    group: [id],
    timeouts: TIER_FLEET_TIMEOUTS,
    max_tokens: { cap: 64, default: 16 },
  });
  return {
    deployments: IDS.map(deployment),
    tiers: { SIMPLE: tier('small'), MODERATE: tier('medium'), COMPLEX: tier('large'), EXPERT: tier('huge') },
    classifier,
  };
}
