import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRoutingTable } from '../../src/config/load-routing-table.js';
import { toRelativeCost, toTierCostWeights } from '../../eval/routing-cost.js';

const WEIGHTS = { SIMPLE: 1, MODERATE: 2, COMPLEX: 4, EXPERT: 10 };

describe('toTierCostWeights', () => {
  it("takes each tier's first group deployment's cost_weight from the routing table", () => {
    const text = readFileSync('routing-tables/default.yaml', 'utf8');
    const { table } = parseRoutingTable({ text, source: 'default.yaml', now: 0 });
    expect(toTierCostWeights(table)).toEqual({ SIMPLE: 1, MODERATE: 1.8, COMPLEX: 3, EXPERT: 12 });
  });
});

describe('toRelativeCost', () => {
  it('divides the routed cost by the cost of sending everything to EXPERT', () => {
    // (1 + 2 + 4 + 10) / (4 * 10)
    expect(toRelativeCost(['SIMPLE', 'MODERATE', 'COMPLEX', 'EXPERT'], WEIGHTS)).toBeCloseTo(17 / 40, 12);
    expect(toRelativeCost(['EXPERT', 'EXPERT'], WEIGHTS)).toBe(1);
  });

  it('is 0 for no requests or a free EXPERT tier', () => {
    expect(toRelativeCost([], WEIGHTS)).toBe(0);
    expect(toRelativeCost(['SIMPLE'], { ...WEIGHTS, SIMPLE: 0, EXPERT: 0 })).toBe(0);
  });
});
