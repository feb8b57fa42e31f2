import { describe, expect, it } from 'vitest';
import { toInsertStatements, type InsertTable } from './insert-statements.js';

interface Pair {
  id: string;
  value: number;
}

const PAIRS: InsertTable<Pair> = {
  name: 'pairs',
  columns: [
    ['id', (row) => row.id],
    ['value', (row) => row.value],
  ],
};

const pairs = (count: number): Pair[] =>
  Array.from({ length: count }, (_, index) => ({ id: `p${index}`, value: index }));

describe('toInsertStatements', () => {
  it('numbers the parameters row by row and skips rows already there', () => {
    expect(toInsertStatements(PAIRS, pairs(2))).toEqual([
      {
        text: 'INSERT INTO pairs (id, value) VALUES ($1, $2), ($3, $4) ON CONFLICT DO NOTHING',
        params: ['p0', 0, 'p1', 1],
      },
    ]);
  });

  it('splits rows so that no statement carries more parameters than the cap', () => {
    const statements = toInsertStatements(PAIRS, pairs(2_001), 1_000);
    expect(statements.map((statement) => statement.params.length)).toEqual([1_000, 1_000, 1_000, 1_000, 2]);
    expect(statements.at(-1)!.text).toBe(
      'INSERT INTO pairs (id, value) VALUES ($1, $2) ON CONFLICT DO NOTHING',
    );
  });

  it('keeps the default cap below the protocol limit of 65,535 parameters', () => {
    const statements = toInsertStatements(PAIRS, pairs(100_000));
    expect(Math.max(...statements.map((statement) => statement.params.length))).toBeLessThan(65_535);
    expect(statements.reduce((rows, statement) => rows + statement.params.length / 2, 0)).toBe(100_000);
  });

  it('makes no statement for no rows, and refuses a table wider than the cap', () => {
    expect(toInsertStatements(PAIRS, [])).toEqual([]);
    expect(() => toInsertStatements(PAIRS, pairs(1), 1)).toThrow(/2 columns exceed 1 parameters/);
  });
});
