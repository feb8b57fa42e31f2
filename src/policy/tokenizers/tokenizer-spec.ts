import type { BpeModel } from './bpe-merge.js';
import type { PairTable } from './pair-table.js';
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
