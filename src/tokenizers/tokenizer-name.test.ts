import { describe, expect, it } from 'vitest';
import { toTokenizerName, toTokenizerNames } from './tokenizer-name.js';

describe('the tokenizer of a deployment', () => {
  it('is Qwen3 for a model named qwen in any case, else o200k_base, unless the table names one', () => {
    expect(toTokenizerName({ model: 'Qwen/Qwen3-235B-A22B', tokenizer: 'auto' })).toBe('qwen3');
    expect(toTokenizerName({ model: 'mlx-community/qwen2.5-coder-7b' })).toBe('qwen3');
    expect(toTokenizerName({ model: 'gpt-4o-mini', tokenizer: 'auto' })).toBe('o200k_base');
    expect(toTokenizerName({ model: 'Qwen/Qwen3-8B', tokenizer: 'cl100k_base' })).toBe('cl100k_base');
  });

  it('is counted once per distinct tokenizer of a table', () => {
    const deployments = [
      { model: 'Qwen/Qwen3-8B' },
      { model: 'Qwen/Qwen3-32B' },
      { model: 'gpt-4o', tokenizer: 'auto' as const },
    ];
    expect(toTokenizerNames(deployments)).toEqual(['qwen3', 'o200k_base']);
  });
});
