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

/** Slots of four int32s (left + 1, right, merged, unused): one probe reads one cache line. */
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
    const mask = (slots.length >> 2) - 1;
    for (let slot = toSlot(left, right, mask); ; slot = (slot + 1) & mask) {
      const base = slot << 2;
      const stored = slots[base] ?? 0;
      if (stored === 0) return -1;
      if (stored === left + 1 && slots[base + 1] === right) return slots[base + 2] ?? -1;
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

/**
 * A table of merges given as (left, right, merged) triples, a table whose load factor is at most two
 * thirds; the first triple for a pair wins.
 */
export function buildPairTable(triples: Int32Array): PairTable {
  const count = Math.floor(triples.length / 3);
  let capacity = 1024;
  while (capacity * 2 < count * 3) capacity *= 2;
  const slots = toSharedInt32Array(capacity * 4);
  const dense = toSharedInt32Array(DENSE_IDS * DENSE_IDS).fill(-1);
  const mask = capacity - 1;
  let size = 0;
  for (let index = 0; index + 2 < triples.length; index += 3) {
    const left = triples[index] ?? 0;
    const right = triples[index + 1] ?? 0;
    const merged = triples[index + 2] ?? 0;
    if (left < 0 || right < 0 || left > MAX_TOKEN_ID || right > MAX_TOKEN_ID)
      throw new RangeError(`token id out of range: ${left}, ${right}`);
    let slot = toSlot(left, right, mask);
    while (slots[slot << 2] !== 0 && !(slots[slot << 2] === left + 1 && slots[(slot << 2) + 1] === right))
      slot = (slot + 1) & mask;
    if (slots[slot << 2] !== 0) continue;
    slots[slot << 2] = left + 1;
    slots[(slot << 2) + 1] = right;
    slots[(slot << 2) + 2] = merged;
    if (left < DENSE_IDS && right < DENSE_IDS) dense[left * DENSE_IDS + right] = merged;
    size += 1;
  }
  return new OpenPairTable({ slots, dense, size });
}

/** The table's merges as (left, right, merged) triples, in slot order (`buildPairTable` rebuilds it). */
export function toPairTriples(parts: PairTableParts): Int32Array {
  const triples = new Int32Array(parts.size * 3);
  let next = 0;
  for (let base = 0; base < parts.slots.length; base += 4) {
    const left = parts.slots[base] ?? 0;
    if (left === 0) continue;
    triples[next++] = left - 1;
    triples[next++] = parts.slots[base + 1] ?? 0;
    triples[next++] = parts.slots[base + 2] ?? 0;
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
