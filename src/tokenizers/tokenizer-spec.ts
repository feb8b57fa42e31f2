import type { BpeModel } from './bpe-merge.js';
import { toPairTable, toSharedInt32Array, type PairTable, type PairTableParts } from './pair-table.js';
import type { PatternName } from './piece-scanner.js';

/** Everything a byte-level BPE tokenizer needs to count a text. */
export interface TokenizerSpec {
  model: BpeModel;
  /** The pre-tokenizer that cuts text into the pieces BPE merges. */
  pattern: PatternName;
  /** Unicode NFC before pre-tokenizing (Qwen's normalizer). */
  normalizeNfc: boolean;
  /** Texts that are one token wherever they appear (Qwen's `<|im_start|>`, `<think>` ...). */
  addedTokens: readonly string[];
}

export function createBpeModel(byteIds: Int32Array, pairs: PairTable): BpeModel {
  const missing = byteIds.indexOf(-1);
  if (missing !== -1) throw new Error(`the vocabulary has no token for byte ${missing}`);
  return { byteIds, pairs };
}

/**
 * A spec as plain data for a counting thread: its arrays are views of SharedArrayBuffers, so posting
 * it copies no table (one copy of each vocabulary per process, whatever the number of threads).
 */
export interface SharedTokenizerSpec {
  byteIds: Int32Array;
  pairs: PairTableParts;
  pattern: PatternName;
  normalizeNfc: boolean;
  addedTokens: readonly string[];
}

export function toSharedSpec(spec: TokenizerSpec): SharedTokenizerSpec {
  const byteIds = toSharedInt32Array(spec.model.byteIds.length);
  byteIds.set(spec.model.byteIds);
  return {
    byteIds,
    pairs: spec.model.pairs.parts,
    pattern: spec.pattern,
    normalizeNfc: spec.normalizeNfc,
    addedTokens: spec.addedTokens,
  };
}

export function fromSharedSpec(shared: SharedTokenizerSpec): TokenizerSpec {
  return {
    model: createBpeModel(shared.byteIds, toPairTable(shared.pairs)),
    pattern: shared.pattern,
    normalizeNfc: shared.normalizeNfc,
    addedTokens: shared.addedTokens,
  };
}
