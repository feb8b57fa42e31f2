import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRoutingTable, type LoadedTable } from '../../src/config/load-routing-table.js';
import { EVAL_CLASSIFIER_ID, toEvalTable } from '../../eval/eval-table.js';

const defaultTable = parseRoutingTable({
  text: readFileSync('routing-tables/default.yaml', 'utf8'),
  source: 'routing-tables/default.yaml',
  now: 0,
});

function withClassifierDeployment(): LoadedTable {
  const text = `${readFileSync('routing-tables/default.yaml', 'utf8').replace(
    'classifier:\n  mode: local',
    'classifier:\n  mode: cascade\n  deployment: qwen3-8b-mlx\n  cache: { max_entries: 500 }',
  )}`;
  return parseRoutingTable({ text, source: 'with-classifier.yaml', now: 0 });
}

describe('toEvalTable', () => {
  it('turns the classification cache off and keeps the rest of the table', () => {
    const loaded = toEvalTable({ loaded: defaultTable, mode: 'local', now: 5 });
    expect(loaded.table.classifier.cache.max_entries).toBe(0);
    expect(loaded.table.classifier.mode).toBe('local');
    expect(loaded.table.tiers).toEqual(defaultTable.table.tiers);
    expect(Object.isFrozen(loaded.table)).toBe(true);
    expect(defaultTable.table.classifier.cache.max_entries).toBe(10_000);
  });

  it('runs the heuristic and learned modes with a local table classifier', () => {
    expect(toEvalTable({ loaded: defaultTable, mode: 'heuristic', now: 0 }).table.classifier.mode).toBe(
      'local',
    );
  });

  it('points the named classifier deployment at --classifier-url and overrides the deadline', () => {
    const loaded = toEvalTable({
      loaded: withClassifierDeployment(),
      mode: 'llm',
      classifierUrl: 'http://127.0.0.1:9/v1',
      deadlineMs: 5000,
      now: 0,
    });
    const classifier = loaded.table.deployments.find((deployment) => deployment.id === 'qwen3-8b-mlx');
    expect(classifier?.base_url).toBe('http://127.0.0.1:9/v1');
    expect(loaded.table.classifier).toMatchObject({
      mode: 'llm',
      deadline_ms: 5000,
      cache: { max_entries: 0 },
    });
  });

  it('adds a classifier deployment when the table names none', () => {
    const loaded = toEvalTable({
      loaded: defaultTable,
      mode: 'cascade',
      classifierUrl: 'http://127.0.0.1:9/v1',
      now: 0,
    });
    expect(loaded.table.classifier.deployment).toBe(EVAL_CLASSIFIER_ID);
    expect(loaded.table.deployments.at(-1)).toMatchObject({
      id: EVAL_CLASSIFIER_ID,
      model: 'Qwen/Qwen3-8B',
      base_url: 'http://127.0.0.1:9/v1',
    });
  });

  it('explains that cascade and llm need a classifier server', () => {
    expect(() => toEvalTable({ loaded: defaultTable, mode: 'llm', now: 0 })).toThrow(/--classifier-url/);
  });

  it('rejects a URL the routing-table schema rejects', () => {
    expect(() =>
      toEvalTable({ loaded: defaultTable, mode: 'llm', classifierUrl: 'ftp://x', now: 0 }),
    ).toThrow(/base_url/);
  });
});
