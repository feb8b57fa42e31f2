/** The four complexity tiers, cheapest first. Order matters: index = rank. */
export const TIERS = ['SIMPLE', 'MODERATE', 'COMPLEX', 'EXPERT'] as const;

export type Tier = (typeof TIERS)[number];

export function isTier(value: unknown): value is Tier {
  return typeof value === 'string' && (TIERS as readonly string[]).includes(value);
}

/** Rank of a tier: SIMPLE = 0 ... EXPERT = 3. */
export function toTierRank(tier: Tier): number {
  return TIERS.indexOf(tier);
}

/** The tier of a rank, clamped to the valid range. */
export function toTierFromRank(rank: number): Tier {
  const clamped = Math.max(0, Math.min(TIERS.length - 1, Math.round(rank)));
  return TIERS[clamped] ?? 'EXPERT';
}

export function maxTier(a: Tier, b: Tier): Tier {
  return toTierRank(a) >= toTierRank(b) ? a : b;
}

/** One tier higher, EXPERT stays EXPERT. */
export function toNextTier(tier: Tier): Tier {
  return toTierFromRank(toTierRank(tier) + 1);
}
