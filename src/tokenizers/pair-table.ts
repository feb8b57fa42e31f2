/**
 * Merge rules of a byte-level BPE as an open-addressing hash table keyed by two token ids: no string is
 * built per lookup. The value is the id of the merged token; in both vocabularies used here a lower id
 * is a higher-priority merge (Qwen's merges are listed in the order of their results' ids, and
 * tiktoken's rank is the id), so the value is also the merge's rank.
 */
export interface PairTable {
  /** Id of the token `left` + `right` merge into, or -1 when the pair never merges. */
  get(left: number, right: number): number;
  readonly size: number;
  /** The table's arrays, over SharedArrayBuffers: a counting thread reads the same memory (`toPairTable`). */
  readonly parts: PairTableParts;
}

/**
 * A pair table as plain data that can be posted to a worker thread without a copy: both arrays are
 * views of SharedArrayBuffers, so every thread of a process reads one copy of the merges.
 */
export interface PairTableParts {
  slots: Int32Array;
  dense: Int32Array;
  size: number;
}

export interface PairTableBuilder {
  /** Adds a merge; the first one added for a pair wins. */
  add(left: number, right: number, merged: number): void;
  build(): PairTable;
}

/** Ids are below 2^18 (262,144): o200k has 200,019 and Qwen 151,665. */
export const MAX_TOKEN_ID = 2 ** 18 - 1;

function toSlot(left: number, right: number, mask: number): number {
  let hash = Math.imul(left, 0x9e3779b1) ^ Math.imul(right + 0x7f4a7c15, 0x85ebca6b);
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0x2c1b3c6d);
  hash ^= hash >>> 12;
  return hash & mask;
}

/** Ids below this have their pairs in a dense table (256 KB): BPE's first merges are of single bytes. */
const DENSE_IDS = 256;

/**
 * Slots of two int32s, 8 bytes (o200k's 446k merges fit in 8 MiB): the first holds left + 1 (19 bits,
 * 0 = empty) and the low 13 bits of right; the second the other 5 bits of right and, above them, the
 * merged id (18 bits).
 */
const RIGHT_LOW_BITS = 13;
const RIGHT_LOW_MASK = (1 << RIGHT_LOW_BITS) - 1;
const RIGHT_HIGH_MASK = (1 << (18 - RIGHT_LOW_BITS)) - 1;
const MERGED_SHIFT = 18 - RIGHT_LOW_BITS;

function toKeyWord(left: number, right: number): number {
  return (left + 1) | ((right & RIGHT_LOW_MASK) << 19);
}

class OpenPairTable implements PairTable {
  private readonly slots: Int32Array;
  private readonly dense: Int32Array;
  readonly size: number;

  constructor(readonly parts: PairTableParts) {
    this.slots = parts.slots;
    this.dense = parts.dense;
    this.size = parts.size;
  }

  get(left: number, right: number): number {
    if (left < DENSE_IDS && right < DENSE_IDS) return this.dense[left * DENSE_IDS + right] ?? -1;
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    const key = toKeyWord(left, right);
    const high = right >>> RIGHT_LOW_BITS;
    for (let slot = toSlot(left, right, mask); ; slot = (slot + 1) & mask) {
      const stored = slots[slot << 1] ?? 0;
      if (stored === 0) return -1;
      if (stored !== key) continue;
      const value = slots[(slot << 1) + 1] ?? 0;
      if ((value & RIGHT_HIGH_MASK) === high) return value >>> MERGED_SHIFT;
    }
  }
}

/** A zeroed Int32Array over a SharedArrayBuffer. */
export function toSharedInt32Array(length: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * length));
}

/** The table over parts a builder made (in this thread or, posted, in another). */
export function toPairTable(parts: PairTableParts): PairTable {
  return new OpenPairTable(parts);
}

/** Fills a table merge by merge (a compiled file is read in chunks, never whole). */
export interface PairTableWriter {
  /** Adds a merge; the first one added for a pair wins. */
  add(left: number, right: number, merged: number): void;
  finish(): PairTable;
}

/** A writer for about `count` merges: the table's load factor stays at most two thirds. */
export function createPairTableWriter(count: number): PairTableWriter {
  let capacity = 1024;
  while (capacity * 2 < count * 3) capacity *= 2;
  const slots = toSharedInt32Array(capacity * 2);
  const dense = toSharedInt32Array(DENSE_IDS * DENSE_IDS).fill(-1);
  const mask = capacity - 1;
  let size = 0;
  return {
    add(left, right, merged) {
      if (left < 0 || right < 0 || left > MAX_TOKEN_ID || right > MAX_TOKEN_ID)
        throw new RangeError(`token id out of range: ${left}, ${right}`);
      if (merged < 0 || merged > MAX_TOKEN_ID) throw new RangeError(`token id out of range: ${merged}`);
      if (size * 3 >= capacity * 2) throw new RangeError(`more than ${count} merges`);
      const key = toKeyWord(left, right);
      const high = right >>> RIGHT_LOW_BITS;
      let slot = toSlot(left, right, mask);
      for (; slots[slot << 1] !== 0; slot = (slot + 1) & mask)
        if (slots[slot << 1] === key && ((slots[(slot << 1) + 1] ?? 0) & RIGHT_HIGH_MASK) === high) return;
      slots[slot << 1] = key;
      slots[(slot << 1) + 1] = high | (merged << MERGED_SHIFT);
      if (left < DENSE_IDS && right < DENSE_IDS) dense[left * DENSE_IDS + right] = merged;
      size += 1;
    },
    finish: () => new OpenPairTable({ slots, dense, size }),
  };
}

/** A table of merges given as (left, right, merged) triples; the first triple for a pair wins. */
export function buildPairTable(triples: Int32Array): PairTable {
  const writer = createPairTableWriter(Math.floor(triples.length / 3));
  for (let index = 0; index + 2 < triples.length; index += 3)
    writer.add(triples[index] ?? 0, triples[index + 1] ?? 0, triples[index + 2] ?? 0);
  return writer.finish();
}

/** The table's merges as (left, right, merged) triples, in slot order (`buildPairTable` rebuilds it). */
export function toPairTriples(parts: PairTableParts): Int32Array {
  const triples = new Int32Array(parts.size * 3);
  let next = 0;
  for (let base = 0; base < parts.slots.length; base += 2) {
    const key = parts.slots[base] ?? 0;
    if (key === 0) continue;
    const value = parts.slots[base + 1] ?? 0;
    triples[next++] = (key & 0x7ffff) - 1;
    triples[next++] = (key >>> 19) | ((value & RIGHT_HIGH_MASK) << RIGHT_LOW_BITS);
    triples[next++] = value >>> MERGED_SHIFT;
  }
  return triples;
}

/** Collects merges, then builds the table (`buildPairTable`). */
export function createPairTableBuilder(): PairTableBuilder {
  const added: number[] = [];
  return {
    add(left, right, merged) {
      if (left < 0 || right < 0 || left > MAX_TOKEN_ID || right > MAX_TOKEN_ID)
        throw new RangeError(`token id out of range: ${left}, ${right}`);
      added.push(left, right, merged);
    },
    build: () => buildPairTable(Int32Array.from(added)),
  };
}
