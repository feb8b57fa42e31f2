import { describe, expect, it } from 'vitest';
import {
  buildOrder,
  compareRuns,
  formatComparison,
  parseCompareArgs,
  percentChange,
  type RunRecord,
} from './build-comparison.js';

function record(overrides: Partial<RunRecord> & Pick<RunRecord, 'round' | 'target'>): RunRecord {
  return {
    model: 'auto',
    p50Ms: 1,
    p99Ms: 2,
    cpuUsPerRequest: undefined,
    ok: 100,
    failures: 0,
    ...overrides,
  };
}

describe('parseCompareArgs', () => {
  it('reads both checkouts, the sizes and the comma-separated models', () => {
    const options = parseCompareArgs([
      '--base',
      '/a',
      '--new',
      '/b',
      '--rounds',
      '3',
      '--requests',
      '800',
      '--models',
      'tier:SIMPLE, auto',
      '--pause-ms',
      '0',
    ]);
    expect(options).toMatchObject({
      base: '/a',
      next: '/b',
      rounds: 3,
      requests: 800,
      warmup: 200,
      models: ['tier:SIMPLE', 'auto'],
      pauseMs: 0,
      out: undefined,
    });
  });

  it('defaults to 8 rounds of 1500 requests of tier:SIMPLE and auto, 200 ms apart', () => {
    const options = parseCompareArgs(['--base', '/a', '--new', '/b']);
    expect(options).toMatchObject({
      rounds: 8,
      requests: 1500,
      models: ['tier:SIMPLE', 'auto'],
      pauseMs: 200,
    });
  });

  it('refuses a missing checkout, a count that is not a positive integer and an unknown flag', () => {
    expect(() => parseCompareArgs(['--base', '/a'])).toThrow(/usage/);
    expect(() => parseCompareArgs(['--base', '/a', '--new', '/b', '--rounds', '0'])).toThrow(/--rounds/);
    expect(() => parseCompareArgs(['--base', '/a', '--new', '/b', '--requests', '1.5'])).toThrow(
      /--requests/,
    );
    expect(() => parseCompareArgs(['--base', '/a', '--new', '/b', '--models', ' ,'])).toThrow(/--models/);
    expect(() => parseCompareArgs(['--base', '/a', '--new', '/b', '--round', '2'])).toThrow();
  });
});

describe('buildOrder', () => {
  it('runs base first in even rounds and new first in odd ones', () => {
    expect([0, 1, 2, 3].map(buildOrder)).toEqual([
      ['base', 'new'],
      ['new', 'base'],
      ['base', 'new'],
      ['new', 'base'],
    ]);
  });
});

describe('percentChange', () => {
  it('is the change of new against base in percent to 0.1, null without a positive base', () => {
    expect(percentChange(200, 210)).toBe(5);
    expect(percentChange(3, 2)).toBe(-33.3);
    expect(percentChange(0, 1)).toBeNull();
    expect(percentChange(-1, 1)).toBeNull();
    expect(percentChange(Number.NaN, 1)).toBeNull();
  });
});

describe('compareRuns', () => {
  const runs: RunRecord[] = [0, 1, 2].flatMap((round) => [
    record({ round, target: 'direct', p50Ms: 0.5, p99Ms: 1 }),
    record({ round, target: 'base', p50Ms: 1 + round, p99Ms: 3, cpuUsPerRequest: 100 * (round + 1) }),
    record({ round, target: 'new', p50Ms: 1.5 + round, p99Ms: 3, cpuUsPerRequest: 110 * (round + 1) }),
  ]);

  it('takes medians over rounds and the change of the medians and of each round', () => {
    const [auto] = compareRuns(runs, ['auto']);
    expect(auto?.metrics.cpuUsPerRequest).toEqual({
      base: 200,
      next: 220,
      changePercent: 10,
      pairedChangePercent: 10,
      newHigher: 3,
      rounds: 3,
    });
    // per round +50%, +25%, +16.7%: the paired median is the middle one
    expect(auto?.metrics.p50Ms).toMatchObject({
      base: 2,
      next: 2.5,
      changePercent: 25,
      pairedChangePercent: 25,
    });
    expect(auto?.metrics.p99Ms).toMatchObject({ changePercent: 0, newHigher: 0, rounds: 3 });
  });

  it('subtracts the direct run of the same round for the added latency', () => {
    const [auto] = compareRuns(runs, ['auto']);
    expect(auto?.metrics.addedP50Ms).toMatchObject({ base: 1.5, next: 2 });
    expect(auto?.metrics.addedP99Ms).toMatchObject({ base: 2, next: 2, changePercent: 0 });
    expect(auto?.direct).toEqual({ p50Ms: 0.5, p99Ms: 1 });
  });

  it('keeps models apart and counts failures per target', () => {
    const mixed = [
      ...runs,
      record({ round: 0, model: 'tier:SIMPLE', target: 'base', p50Ms: 9, failures: 2, ok: 40 }),
      record({ round: 0, model: 'tier:SIMPLE', target: 'new', p50Ms: 9 }),
    ];
    const [auto, simple] = compareRuns(mixed, ['auto', 'tier:SIMPLE']);
    expect(auto?.metrics.p50Ms.base).toBe(2);
    expect(simple?.metrics.p50Ms).toMatchObject({ base: 9, next: 9 });
    expect(simple?.failures).toEqual({ base: 2, new: 0, direct: 0 });
    expect(simple?.fewestMeasured).toBe(40);
    // no direct run for this model: no added latency, and no change to report
    expect(simple?.metrics.addedP50Ms.changePercent).toBeNull();
  });

  it('prints one row per model and metric with signed changes', () => {
    const text = formatComparison(compareRuns(runs, ['auto']));
    expect(text.split('\n')).toHaveLength(6);
    expect(text).toMatch(/auto\s+CPU us\/request\s+200\s+220\s+\+10\.0%\s+\+10\.0%\s+3\/3/);
  });
});
