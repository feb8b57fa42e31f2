/** Tokenizers autotier can count with. */
export const TOKENIZER_NAMES = ['qwen3', 'o200k_base', 'cl100k_base'] as const;
export type TokenizerName = (typeof TOKENIZER_NAMES)[number];

/** A deployment's `tokenizer` setting: a name, or `auto`. */
export type TokenizerSetting = TokenizerName | 'auto';

/**
 * The tokenizer that counts a deployment's prompts. `auto`: Qwen's for a model whose name contains
 * "qwen" (any case; Qwen2 to Qwen3-VL share one tokenizer), else o200k_base.
 */
export function toTokenizerName(deployment: { model: string; tokenizer?: TokenizerSetting }): TokenizerName {
  const setting = deployment.tokenizer ?? 'auto';
  if (setting !== 'auto') return setting;
  return /qwen/i.test(deployment.model) ? 'qwen3' : 'o200k_base';
}

/** The distinct tokenizers of some deployments, in a stable order. */
export function toTokenizerNames(
  deployments: readonly { model: string; tokenizer?: TokenizerSetting }[],
): TokenizerName[] {
  const used = new Set(deployments.map(toTokenizerName));
  return TOKENIZER_NAMES.filter((name) => used.has(name));
}
