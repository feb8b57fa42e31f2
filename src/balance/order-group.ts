import type { Random } from '../shared/clock.js';

export type BalanceStrategy = 'weighted' | 'least_busy' | 'latency';

export interface GroupMember {
  id: string;
  weight: number;
}

export interface OrderGroupOptions {
  members: readonly GroupMember[];
  strategy: BalanceStrategy;
  random: Random;
  /** In-flight requests per deployment id (least_busy). */
  inFlight: ReadonlyMap<string, number>;
  /** EWMA time to first token per deployment id, ms (latency). */
  latencies: ReadonlyMap<string, number>;
}

/** Weighted shuffle without replacement: heavier members tend to come first. */
export function weightedShuffle(members: readonly GroupMember[], random: Random): string[] {
  const pool = [...members];
  const order: string[] = [];
  while (pool.length > 0) {
    const total = pool.reduce((sum, member) => sum + member.weight, 0);
    let target = random() * total;
    let chosen = pool.length - 1;
    for (let index = 0; index < pool.length; index += 1) {
      target -= pool[index]?.weight ?? 0;
      if (target < 0) {
        chosen = index;
        break;
      }
    }
    order.push(...pool.splice(chosen, 1).map((member) => member.id));
  }
  return order;
}

/**
 * The order in which a tier's group is tried. Ties (equal in-flight counts, equal latency) are
 * broken by the weighted shuffle, so traffic still spreads. The latency strategy tries untried
 * deployments first, so a new or recovered deployment gets a sample.
 */
export function orderGroup(options: OrderGroupOptions): string[] {
  const shuffled = weightedShuffle(options.members, options.random);
  switch (options.strategy) {
    case 'weighted':
      return shuffled;
    case 'least_busy':
      return stableSortBy(shuffled, (id) => options.inFlight.get(id) ?? 0);
    case 'latency':
      return stableSortBy(shuffled, (id) => options.latencies.get(id) ?? -1);
  }
}

function stableSortBy(ids: readonly string[], key: (id: string) => number): string[] {
  return ids
    .map((id, position) => ({ id, position, key: key(id) }))
    .sort((a, b) => a.key - b.key || a.position - b.position)
    .map((entry) => entry.id);
}
