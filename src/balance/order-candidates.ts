import type { Random } from '../shared/clock.js';
import type { StateStore } from '../state/state-store.js';
import type { BalancerPolicy, GroupLoad } from './balancer-policy.js';
import type { RoutePlan } from './route-plan.js';
import type { Candidate } from './to-candidates.js';

const NO_LOAD: GroupLoad = { inFlight: new Map(), latencies: new Map() };

/**
 * The try order of a request, as the policy decides it (BalancerPolicy.tryOrder), from the group's
 * load read from the store only when the strategy needs it: `weighted` skips two store reads (two
 * Redis round trips) per request.
 */
export async function orderCandidates(
  parts: { store: StateStore; random: Random; policy: () => BalancerPolicy },
  plan: RoutePlan,
): Promise<Candidate[]> {
  const policy = parts.policy();
  let load = NO_LOAD;
  if (policy.readsLoad(plan)) {
    const ids = plan.group.map((deployment) => deployment.id);
    const [inFlight, latencies] = await Promise.all([
      parts.store.getInFlight(ids),
      parts.store.getLatencies(ids),
    ]);
    load = { inFlight, latencies };
  }
  return policy.tryOrder(plan, load, parts.random);
}
