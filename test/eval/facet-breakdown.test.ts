import { describe, expect, it } from 'vitest';
import { MISSING_FACET, toFacetBreakdown, toFacetBreakdowns } from '../../eval/facet-breakdown.js';
import { toScoredCases } from './scored-case-fixture.js';

const cases = toScoredCases([
  { gold: 'SIMPLE', predicted: 'SIMPLE', facets: { lang: 'en', source: 'a' } },
  { gold: 'COMPLEX', predicted: 'MODERATE', acceptable: ['MODERATE'], facets: { lang: 'en', source: 'a' } },
  { gold: 'SIMPLE', predicted: 'MODERATE', facets: { lang: 'ko', source: 'b' } },
  { gold: 'EXPERT', predicted: 'EXPERT', facets: { lang: 'ko', source: 'a' } },
  { gold: 'EXPERT', predicted: 'COMPLEX', facets: { source: 'c' } },
]);

describe('toFacetBreakdown', () => {
  it('summarizes each value, largest group first, ties by name, missing values grouped', () => {
    expect(toFacetBreakdown(cases, 'lang')).toEqual([
      {
        value: 'en',
        n: 2,
        accuracy: 0.5,
        acceptable_accuracy: 1,
        under_routing_rate: 0.5,
        over_routing_rate: 0,
      },
      {
        value: 'ko',
        n: 2,
        accuracy: 0.5,
        acceptable_accuracy: 0.5,
        under_routing_rate: 0,
        over_routing_rate: 0.5,
      },
      {
        value: MISSING_FACET,
        n: 1,
        accuracy: 0,
        acceptable_accuracy: 0,
        under_routing_rate: 1,
        over_routing_rate: 0,
      },
    ]);
  });

  it('is undefined when no case carries the facet, and left out of the breakdowns', () => {
    expect(toFacetBreakdown(cases, 'kind')).toBeUndefined();
    expect(Object.keys(toFacetBreakdowns(cases))).toEqual(['source', 'lang']);
  });
});
