import type { Random } from '../shared/clock.js';
import type { StateStore } from '../state/state-store.js';
import { orderGroup } from './order-group.js';
import type { RoutePlan } from './route-plan.js';
import { toCandidates, type Candidate } from './to-candidates.js';

/** The try order of a request: its group ordered by the plan's strategy, then its fallback chain. */
export async function orderCandidates(
  parts: { store: StateStore; random: Random },
  plan: RoutePlan,
): Promise<Candidate[]> {
  const { store } = parts;
  const ids = plan.group.map((deployment) => deployment.id);
  // weighted order needs no state: skip two store reads (two Redis round trips) per request
  const needsState = plan.strategy !== 'weighted';
  const [inFlight, latencies] = needsState
    ? await Promise.all([store.getInFlight(ids), store.getLatencies(ids)])
    : [new Map<string, number>(), new Map<string, number>()];
  const members = plan.group.map((deployment) => ({ id: deployment.id, weight: deployment.weight }));
  const order = orderGroup({ members, strategy: plan.strategy, random: parts.random, inFlight, latencies });
  return toCandidates(plan, order);
}
