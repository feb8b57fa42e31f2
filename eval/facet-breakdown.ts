import { FACETS, type Facet } from './eval-case.js';
import { toAcceptableAccuracy, toAccuracy, toRoutingRates } from './routing-rates.js';
import type { ScoredCase } from './scored-case.js';

/** Label of the group of cases that lack a facet the others carry. */
export const MISSING_FACET = '(none)';

/** Headline numbers of the cases sharing one facet value; rates are fractions 0..1. */
export interface GroupSummary {
  value: string;
  n: number;
  accuracy: number;
  acceptable_accuracy: number;
  under_routing_rate: number;
  over_routing_rate: number;
}

function toGroupSummary(value: string, cases: readonly ScoredCase[]): GroupSummary {
  const rates = toRoutingRates(cases);
  return {
    value,
    n: cases.length,
    accuracy: toAccuracy(cases),
    acceptable_accuracy: toAcceptableAccuracy(cases),
    under_routing_rate: rates.under,
    over_routing_rate: rates.over,
  };
}

/** Groups by one facet, largest group first (ties by name); undefined when no case has the facet. */
export function toFacetBreakdown(cases: readonly ScoredCase[], facet: Facet): GroupSummary[] | undefined {
  if (!cases.some((scored) => scored.case.facets[facet] !== undefined)) return undefined;
  const groups = new Map<string, ScoredCase[]>();
  for (const scored of cases) {
    const value = scored.case.facets[facet] ?? MISSING_FACET;
    const members = groups.get(value);
    if (members === undefined) groups.set(value, [scored]);
    else members.push(scored);
  }
  return [...groups]
    .map(([value, members]) => toGroupSummary(value, members))
    .sort((a, b) => b.n - a.n || a.value.localeCompare(b.value));
}

/** Every facet present in the file, by facet name. */
export function toFacetBreakdowns(cases: readonly ScoredCase[]): Partial<Record<Facet, GroupSummary[]>> {
  const breakdowns: Partial<Record<Facet, GroupSummary[]>> = {};
  for (const facet of FACETS) {
    const breakdown = toFacetBreakdown(cases, facet);
    if (breakdown !== undefined) breakdowns[facet] = breakdown;
  }
  return breakdowns;
}
