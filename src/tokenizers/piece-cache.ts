/**
 * Token counts of recent pieces (words, numbers, runs of punctuation), looked up without building a
 * string: a 2-way set-associative table keyed by a hash of the piece's UTF-16 units, each hit checked
 * against the stored piece. Memory is bounded by `slots` x `maxLength`; a new piece replaces the older
 * of its two slots. A stored piece is a copy, never a slice that would keep the request's text alive.
 */
export interface PieceCache {
  /** The count stored for text[start, end), or -1. */
  get(text: string, range: { start: number; end: number }): number;
  set(text: string, range: { start: number; end: number }, tokens: number): void;
}

/** V8 copies slices shorter than this (SlicedString::kMinLength) instead of pointing into the parent. */
const COPIED_BELOW = 13;

function toOwnString(piece: string): string {
  return piece.length < COPIED_BELOW ? piece : `${piece} `.slice(0, -1);
}

function hashRange(text: string, range: { start: number; end: number }): number {
  let hash = 0x811c9dc5;
  for (let index = range.start; index < range.end; index++)
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return hash ^ (hash >>> 16);
}

function equalsRange(key: string, text: string, range: { start: number; end: number }): boolean {
  if (key.length !== range.end - range.start) return false;
  for (let index = 0; index < key.length; index++)
    if (key.charCodeAt(index) !== text.charCodeAt(range.start + index)) return false;
  return true;
}

export function createPieceCache(limits: { slots: number; maxLength: number }): PieceCache {
  const mask = (limits.slots - 1) & ~1;
  const keys: (string | undefined)[] = new Array<string | undefined>(limits.slots).fill(undefined);
  const counts = new Int32Array(limits.slots);
  /** Per pair of slots: which one was written last (the other goes next). */
  const recent = new Uint8Array(limits.slots >> 1);
  let lastHash = 0;
  const find = (text: string, range: { start: number; end: number }): number => {
    lastHash = hashRange(text, range);
    const base = lastHash & mask;
    if (equalsRange(keys[base] ?? '', text, range)) return base;
    return equalsRange(keys[base + 1] ?? '', text, range) ? base + 1 : -1;
  };
  return {
    get(text, range) {
      if (range.end - range.start > limits.maxLength) return -1;
      const slot = find(text, range);
      return slot < 0 ? -1 : (counts[slot] ?? -1);
    },
    set(text, range, tokens) {
      if (range.end - range.start > limits.maxLength || find(text, range) >= 0) return;
      const pair = (lastHash & mask) >> 1;
      const slot = 2 * pair + 1 - (recent[pair] ?? 0);
      keys[slot] = toOwnString(text.slice(range.start, range.end));
      counts[slot] = tokens;
      recent[pair] = slot & 1;
    },
  };
}
