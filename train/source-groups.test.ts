import { describe, expect, it } from 'vitest';
import { OWN_PROMPTS_GROUP, toGroupFolds, toSourceGroup } from './source-groups.js';

describe('toSourceGroup', () => {
  it('keeps a public source and puts all of our own prompts in one group', () => {
    expect(toSourceGroup({ source: 'openai__human-eval' })).toBe('openai__human-eval');
    expect(toSourceGroup({ source: 'autotier' })).toBe(OWN_PROMPTS_GROUP);
    expect(toSourceGroup({ source: 'autotier-written-t3' })).toBe(OWN_PROMPTS_GROUP);
  });
});

describe('toGroupFolds', () => {
  it('gives every group a fold of its own for leave-one-group-out', () => {
    const folds = toGroupFolds(['b', 'a', 'c', 'a'], 0);
    expect([...folds.entries()]).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 2],
    ]);
    expect(toGroupFolds(['b', 'a'], 9).get('b')).toBe(1);
  });

  it('deals groups round-robin in name order into k folds, whatever their order', () => {
    const names = ['e', 'd', 'c', 'b', 'a'];
    const folds = toGroupFolds(names, 2);
    expect(names.map((name) => folds.get(name))).toEqual([0, 1, 0, 1, 0]);
    expect(toGroupFolds([...names].reverse(), 2)).toEqual(folds);
  });
});
