import { describe, expect, it } from 'vitest';
import { deployment, plan } from '../../test/helpers/balance-fixtures.js';
import { toCandidates } from './to-candidates.js';

const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((id) => deployment(id)) as [
  ReturnType<typeof deployment>,
  ReturnType<typeof deployment>,
  ReturnType<typeof deployment>,
  ReturnType<typeof deployment>,
];

describe('toCandidates', () => {
  it('puts the group in the given order, then the fallback chain in its quality order', () => {
    const candidates = toCandidates(plan([a, b], [c, d]), ['b', 'a']);
    expect(candidates.map((entry) => [entry.deployment.id, entry.fallback])).toEqual([
      ['b', false],
      ['a', false],
      ['c', true],
      ['d', true],
    ]);
  });

  it('counts the group for group members and every candidate for fallbacks (a 429 benches only with an alternative)', () => {
    const candidates = toCandidates(plan([a], [c, d]), ['a']);
    expect(candidates.map((entry) => entry.groupSize)).toEqual([1, 3, 3]);
  });

  it('leaves out fallbacks already in the group and repeated fallbacks', () => {
    const candidates = toCandidates(plan([a, b], [b, c, c]), ['a', 'b']);
    expect(candidates.map((entry) => entry.deployment.id)).toEqual(['a', 'b', 'c']);
  });

  it('drops ids the group does not hold', () => {
    expect(toCandidates(plan([a]), ['x', 'a']).map((entry) => entry.deployment.id)).toEqual(['a']);
  });
});
