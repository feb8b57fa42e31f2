import { createBpeModel, type TokenizerSpec } from './tokenizer-spec.js';
import { createByteStringIndex, type BytePool } from './byte-string-index.js';
import { createPairTableBuilder } from './pair-table.js';

/** The part of js-tiktoken's rank modules (`js-tiktoken/ranks/*`) counting reads. */
interface TiktokenRanks {
  bpe_ranks: string;
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Decodes js-tiktoken's `bpe_ranks` (lines of `! <first rank> <base64 token> ...`) into one byte pool. */
function toBytePool(ranks: string): BytePool {
  const values = new Int8Array(128).fill(-1);
  for (let index = 0; index < BASE64.length; index++) values[BASE64.charCodeAt(index)] = index;
  const tokens: string[] = [];
  for (const line of ranks.split('\n')) {
    const fields = line.split(' ');
    const first = Number.parseInt(fields[1] ?? '', 10);
    for (let index = 2; index < fields.length; index++) tokens[first + index - 2] = fields[index] ?? '';
  }
  const bytes = new Uint8Array(ranks.length);
  const offsets = new Int32Array(tokens.length + 1);
  let length = 0;
  tokens.forEach((token, id) => {
    offsets[id] = length;
    let bits = 0;
    let buffered = 0;
    for (let index = 0; index < token.length; index++) {
      const value = values[token.charCodeAt(index)] ?? -1;
      if (value < 0) continue;
      bits = (bits << 6) | value;
      buffered += 6;
      if (buffered >= 8) {
        buffered -= 8;
        bytes[length++] = (bits >> buffered) & 0xff;
      }
    }
  });
  offsets[tokens.length] = length;
  return { bytes, offsets };
}

/**
 * A tiktoken vocabulary as merge pairs: tiktoken merges two adjacent parts whenever their concatenation
 * is a token, lowest rank first, so every split of every token into two tokens is a pair.
 */
export function toTiktokenSpec(name: 'o200k' | 'cl100k', ranks: TiktokenRanks): TokenizerSpec {
  const pool = toBytePool(ranks.bpe_ranks);
  const count = pool.offsets.length - 1;
  const index = createByteStringIndex(pool);
  const byteIds = new Int32Array(256).fill(-1);
  const pairs = createPairTableBuilder();
  for (let id = 0; id < count; id++) {
    const start = pool.offsets[id] ?? 0;
    const end = pool.offsets[id + 1] ?? 0;
    if (end - start === 1) byteIds[pool.bytes[start] ?? 0] = id;
    for (let split = start + 1; split < end; split++) {
      const left = index.find(start, split);
      if (left < 0) continue;
      const right = index.find(split, end);
      if (right >= 0) pairs.add(left, right, id);
    }
  }
  return {
    model: createBpeModel(byteIds, pairs.build()),
    pattern: name,
    normalizeNfc: false,
    addedTokens: [],
  };
}

export async function loadTiktoken(name: 'o200k_base' | 'cl100k_base'): Promise<TokenizerSpec> {
  const module =
    name === 'o200k_base'
      ? await import('js-tiktoken/ranks/o200k_base')
      : await import('js-tiktoken/ranks/cl100k_base');
  return toTiktokenSpec(name === 'o200k_base' ? 'o200k' : 'cl100k', module.default);
}
