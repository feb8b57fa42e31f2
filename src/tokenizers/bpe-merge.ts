import type { PairTable } from './pair-table.js';

/** A byte-level BPE vocabulary, as far as counting needs it. */
export interface BpeModel {
  /** Token id of each byte value, 256 entries. */
  byteIds: Int32Array;
  pairs: PairTable;
}

/**
 * BPE work done, in steps (a symbol set up, a pair looked up or a heap entry popped), so tests can
 * bound the work per byte without timing.
 */
export interface WorkMeter {
  steps: number;
}

export interface BpeMerger {
  /** Tokens that bytes[start, end) merge into; at most `maxBytes` bytes at a time. */
  count(bytes: Uint8Array, range: { start: number; end: number }, meter: WorkMeter): number;
}

/** Bits of a heap key that hold the position: keys are rank << POSITION_BITS | position, below 2^31. */
const POSITION_BITS = 12;
export const MAX_MERGE_BYTES = 2 ** POSITION_BITS;
const POSITION_MASK = MAX_MERGE_BYTES - 1;
/** Pieces up to this many bytes are merged by scanning instead of with the heap. */
const SHORT_BYTES = 12;

/**
 * Merges the lowest-ranked adjacent pair first and the leftmost one among equal ranks, as Hugging Face
 * tokenizers (a heap) and tiktoken (a scan) both do, in O(n log n) steps: a binary min-heap of
 * candidate merges over a linked list of symbols; stale heap entries are skipped when popped.
 */
class HeapMerger implements BpeMerger {
  private readonly ids: Int32Array;
  private readonly next: Int32Array;
  private readonly previous: Int32Array;
  /** Rank (= merged id) of the pair that starts at each symbol, -1 when none. */
  private readonly ranks: Int32Array;
  private readonly heap: Int32Array;
  private heapSize = 0;

  constructor(
    private readonly model: BpeModel,
    maxBytes: number,
  ) {
    if (maxBytes > MAX_MERGE_BYTES) throw new RangeError(`maxBytes must be at most ${MAX_MERGE_BYTES}`);
    this.ids = new Int32Array(maxBytes);
    this.next = new Int32Array(maxBytes);
    this.previous = new Int32Array(maxBytes);
    this.ranks = new Int32Array(maxBytes);
    this.heap = new Int32Array(3 * maxBytes);
  }

  private push(key: number): void {
    const heap = this.heap;
    let index = this.heapSize++;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const above = heap[parent] ?? 0;
      if (above <= key) break;
      heap[index] = above;
      index = parent;
    }
    heap[index] = key;
  }

  private pop(): number {
    const heap = this.heap;
    const top = heap[0] ?? 0;
    const size = --this.heapSize;
    const last = heap[size] ?? 0;
    let index = 0;
    for (;;) {
      let child = 2 * index + 1;
      if (child >= size) break;
      if (child + 1 < size && (heap[child + 1] ?? 0) < (heap[child] ?? 0)) child += 1;
      const below = heap[child] ?? 0;
      if (below >= last) break;
      heap[index] = below;
      index = child;
    }
    heap[index] = last;
    return top;
  }

  /** Looks up the pair that starts at `position` and queues it. */
  private link(position: number, right: number): void {
    const rank = this.model.pairs.get(this.ids[position] ?? 0, this.ids[right] ?? 0);
    this.ranks[position] = rank;
    if (rank >= 0) this.push((rank << POSITION_BITS) | position);
  }

  /**
   * Short pieces (most words): the same merge order by scanning a compact array for the lowest rank,
   * O(n^2) steps but cheaper than a heap below SHORT_BYTES.
   */
  private countShort(bytes: Uint8Array, range: { start: number; end: number }, meter: WorkMeter): number {
    const { ids, ranks } = this;
    const pairs = this.model.pairs;
    let length = range.end - range.start;
    for (let index = 0; index < length; index++)
      ids[index] = this.model.byteIds[bytes[range.start + index] ?? 0] ?? 0;
    for (let index = 0; index < length - 1; index++)
      ranks[index] = pairs.get(ids[index] ?? 0, ids[index + 1] ?? 0);
    let steps = 2 * length;
    for (;;) {
      let best = -1;
      let bestRank = 0x7fffffff;
      for (let index = 0; index < length - 1; index++) {
        const rank = ranks[index] ?? -1;
        if (rank >= 0 && rank < bestRank) {
          bestRank = rank;
          best = index;
        }
      }
      steps += length;
      if (best < 0) break;
      ids[best] = bestRank;
      length -= 1;
      for (let index = best + 1; index < length; index++) {
        ids[index] = ids[index + 1] ?? 0;
        ranks[index] = ranks[index + 1] ?? -1;
      }
      if (best < length - 1) ranks[best] = pairs.get(bestRank, ids[best + 1] ?? 0);
      if (best > 0) ranks[best - 1] = pairs.get(ids[best - 1] ?? 0, bestRank);
    }
    meter.steps += steps;
    return length;
  }

  count(bytes: Uint8Array, range: { start: number; end: number }, meter: WorkMeter): number {
    const length = range.end - range.start;
    if (length <= 1) return length;
    if (length <= SHORT_BYTES) return this.countShort(bytes, range, meter);
    if (length > this.ids.length)
      throw new RangeError(`${length} bytes exceed the merger's ${this.ids.length}`);
    const { ids, next, previous, ranks } = this;
    this.heapSize = 0;
    for (let index = 0; index < length; index++) {
      ids[index] = this.model.byteIds[bytes[range.start + index] ?? 0] ?? 0;
      next[index] = index + 1;
      previous[index] = index - 1;
    }
    next[length - 1] = -1;
    ranks[length - 1] = -1;
    for (let index = 0; index < length - 1; index++) this.link(index, index + 1);
    let tokens = length;
    let steps = 2 * length;
    while (this.heapSize > 0) {
      const key = this.pop();
      steps += 1;
      const position = key & POSITION_MASK;
      const rank = key >> POSITION_BITS;
      if (ranks[position] !== rank) continue;
      const absorbed = next[position] ?? 0;
      const after = next[absorbed] ?? -1;
      ids[position] = rank;
      ranks[absorbed] = -1;
      next[position] = after;
      tokens -= 1;
      steps += 2;
      if (after >= 0) {
        previous[after] = position;
        this.link(position, after);
      } else ranks[position] = -1;
      const before = previous[position] ?? -1;
      if (before >= 0) this.link(before, position);
    }
    meter.steps += steps;
    return tokens;
  }
}

export function createBpeMerger(model: BpeModel, maxBytes: number): BpeMerger {
  return new HeapMerger(model, maxBytes);
}
