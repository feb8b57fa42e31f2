import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { RouterError } from '../shared/errors.js';
import { parseRoutingTable } from './load-routing-table.js';

const tier = { group: ['a'] };
const valid = {
  deployments: [
    { id: 'a', model: 'm1', base_url: 'http://127.0.0.1:1/v1', context_window: 1000 },
    { id: 'b', model: 'm2', base_url: 'http://127.0.0.1:2/v1', context_window: 1000, quantization: 'fp8' },
  ],
  tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
};

function parse(input: unknown): ReturnType<typeof parseRoutingTable> {
  return parseRoutingTable({ text: stringify(input), source: 'test.yaml', now: 0 });
}

function problems(input: unknown): string {
  try {
    parse(input);
  } catch (error) {
    expect(error).toBeInstanceOf(RouterError);
    return (error as RouterError).message;
  }
  throw new Error('expected the table to be rejected');
}

describe('routing table validation', () => {
  it('fills defaults and freezes the result', () => {
    const loaded = parse(valid);
    expect(loaded.table.tiers.SIMPLE.timeouts).toEqual({
      connect_ms: 2000,
      ttft_ms: 15_000,
      idle_ms: 10_000,
      total_ms: 120_000,
    });
    expect(loaded.table.balancer.cooldown_ms).toBe(5000);
    expect(Object.isFrozen(loaded.table.tiers.SIMPLE.timeouts)).toBe(true);
  });

  it('names the file and the key path of every error', () => {
    const message = problems({
      ...valid,
      tiers: { ...valid.tiers, SIMPLE: { group: ['nope'], timeouts: { ttft_ms: -1 } } },
      deployments: [{ ...valid.deployments[0], colour: 'red' }],
    });
    expect(message).toContain('test.yaml');
    expect(message).toContain('tiers.SIMPLE.timeouts.ttft_ms');
    expect(message).toContain('deployments.0');
    expect(message).toContain('colour');
    expect(message).toContain('tiers.SIMPLE.group.0: unknown deployment id "nope"');
  });

  it('rejects a missing tier', () => {
    expect(problems({ ...valid, tiers: { SIMPLE: tier } })).toContain('tiers.EXPERT');
  });

  it('rejects duplicate deployment ids', () => {
    expect(problems({ ...valid, deployments: [valid.deployments[0], valid.deployments[0]] })).toContain(
      'deployments.1.id: duplicate deployment id "a"',
    );
  });

  it('requires a classifier deployment in cascade mode', () => {
    expect(problems({ ...valid, classifier: { mode: 'cascade' } })).toContain('classifier.deployment');
  });

  it('reports YAML syntax errors with their line', () => {
    expect(() => parseRoutingTable({ text: 'tiers: [\n  a: b', source: 'bad.yaml', now: 0 })).toThrow(
      /bad\.yaml[\s\S]*line/,
    );
  });

  it('warns when one group mixes served models or quantizations', () => {
    const loaded = parse({ ...valid, tiers: { ...valid.tiers, COMPLEX: { group: ['a', 'b'] } } });
    expect(loaded.warnings).toEqual([
      'tiers.COMPLEX.group mixes served models: m1, m2',
      'tiers.COMPLEX.group mixes quantizations: unspecified, fp8',
    ]);
  });

  for (const file of ['routing-tables/default.yaml', 'routing-tables/example-fleet.yaml']) {
    it(`accepts the shipped table ${file}`, async () => {
      const loaded = parseRoutingTable({ text: await readFile(file, 'utf8'), source: file, now: 0 });
      expect(loaded.warnings).toEqual([]);
    });
  }
});
