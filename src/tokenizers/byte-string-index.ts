/**
 * Token ids of byte strings kept in one pool, found by hashing the bytes in place: used at load time to
 * find every way a tiktoken token splits into two tokens without building a string per split
 * (1.2 million lookups for o200k).
 */
export interface ByteStringIndex {
  /** Id of the token whose bytes are pool[start, end), or -1. */
  find(start: number, end: number): number;
}

export interface BytePool {
  bytes: Uint8Array;
  /** Token id i spans bytes[offsets[i], offsets[i + 1]). */
  offsets: Int32Array;
}

const BASE = 257;

function hashBytes(bytes: Uint8Array, range: { start: number; end: number }): number {
  let hash = 0;
  for (let index = range.start; index < range.end; index++)
    hash = (Math.imul(hash, BASE) + (bytes[index] ?? 0)) | 0;
  return hash;
}

function toSlot(hash: number, mask: number): number {
  let mixed = Math.imul(hash ^ (hash >>> 16), 0x45d9f3b);
  mixed ^= mixed >>> 16;
  return mixed & mask;
}

function equalBytes(pool: BytePool, id: number, range: { start: number; end: number }): boolean {
  const start = pool.offsets[id] ?? 0;
  const length = (pool.offsets[id + 1] ?? 0) - start;
  if (length !== range.end - range.start) return false;
  for (let index = 0; index < length; index++)
    if (pool.bytes[start + index] !== pool.bytes[range.start + index]) return false;
  return true;
}

export function createByteStringIndex(pool: BytePool): ByteStringIndex {
  const count = pool.offsets.length - 1;
  let capacity = 1024;
  while (capacity < count * 2) capacity *= 2;
  const mask = capacity - 1;
  /** id + 1 per slot, 0 = empty; the full hash beside it rejects most probes without a byte compare */
  const slots = new Int32Array(capacity);
  const hashes = new Int32Array(capacity);
  const hash = (start: number, end: number): number => hashBytes(pool.bytes, { start, end });
  for (let id = 0; id < count; id++) {
    const full = hash(pool.offsets[id] ?? 0, pool.offsets[id + 1] ?? 0);
    let slot = toSlot(full, mask);
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = id + 1;
    hashes[slot] = full;
  }
  return {
    find(start, end) {
      const full = hash(start, end);
      for (let slot = toSlot(full, mask); slots[slot] !== 0; slot = (slot + 1) & mask) {
        const id = (slots[slot] ?? 0) - 1;
        if (hashes[slot] === full && equalBytes(pool, id, { start, end })) return id;
      }
      return -1;
    },
  };
}
