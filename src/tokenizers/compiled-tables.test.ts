import { describe, expect, it } from 'vitest';
import { HOSTILE_KINDS, toHostileText } from '../../test/helpers/hostile-texts.js';
import { fromCompiledTables, toCompiledTables, toTablesSource } from './compiled-tables.js';
import { loadTokenizerSpec } from './load-text-counter.js';
import { toPairTriples } from './pair-table.js';
import { createTextCounter } from './text-counter.js';
import { fromSharedSpec } from './tokenizer-spec.js';

/** Triples sorted by pair, so two tables with the same merges compare equal whatever their slots. */
function toSortedTriples(triples: Int32Array): number[][] {
  const rows: number[][] = [];
  for (let index = 0; index < triples.length; index += 3)
    rows.push([triples[index] ?? 0, triples[index + 1] ?? 0, triples[index + 2] ?? 0]);
  return rows.sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0));
}

describe('tokenizer tables compiled at build time', () => {
  it.each(['qwen3', 'o200k_base'] as const)(
    'hold exactly the merges, bytes and added tokens of %s as its package gives them, and count the same',
    async (name) => {
      const spec = await loadTokenizerSpec(name);
      const source = toTablesSource(name);
      const compiled = fromCompiledTables(toCompiledTables(name, spec, source), { tokenizer: name, source });
      if (compiled === undefined) throw new Error('the compiled tables were refused');
      expect(Array.from(compiled.byteIds)).toEqual(Array.from(spec.model.byteIds));
      expect(compiled.pairs.size).toBe(spec.model.pairs.size);
      expect(toSortedTriples(toPairTriples(compiled.pairs))).toEqual(
        toSortedTriples(toPairTriples(spec.model.pairs.parts)),
      );
      expect(compiled.addedTokens).toEqual(spec.addedTokens);
      expect([compiled.pattern, compiled.normalizeNfc]).toEqual([spec.pattern, spec.normalizeNfc]);
      const fromPackage = createTextCounter({ spec });
      const fromBuild = createTextCounter({ spec: fromSharedSpec(compiled) });
      for (const kind of HOSTILE_KINDS) {
        const text = toHostileText(kind, 5_000, 7);
        expect(await fromBuild.count(text)).toBe(await fromPackage.count(text));
      }
    },
    60_000,
  );

  it('are refused when built from another version of the package, for another tokenizer, or cut short', async () => {
    const spec = await loadTokenizerSpec('o200k_base');
    const source = toTablesSource('o200k_base');
    const bytes = toCompiledTables('o200k_base', spec, source);
    expect(source).toMatch(/^js-tiktoken@\d/);
    expect(
      fromCompiledTables(bytes, { tokenizer: 'o200k_base', source: 'js-tiktoken@0.0.1' }),
    ).toBeUndefined();
    expect(fromCompiledTables(bytes, { tokenizer: 'cl100k_base', source })).toBeUndefined();
    expect(
      fromCompiledTables(bytes.subarray(0, bytes.length - 4), { tokenizer: 'o200k_base', source }),
    ).toBeUndefined();
    expect(fromCompiledTables(new Uint8Array(3), { tokenizer: 'o200k_base', source })).toBeUndefined();
  }, 60_000);
});
