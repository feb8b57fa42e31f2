import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTokenCounter, type TokenCounter } from '../../src/policy/token-counter.js';
import {
  createQwenReference,
  readPromptEntries,
  SAMPLE_TOOLS,
  type QwenReference,
} from '../helpers/qwen-reference.js';
import { toReadablePath } from '../../train/training-inputs.js';

/** The shared dev set (684 real prompts) lives beside the repository, not in it. */
const DEV_SET = toReadablePath('../shared/datasets/dev.jsonl', process.cwd());

/**
 * No prompt the context-length rule calls a fit is over the window by Qwen3's real count: the
 * rule's count, without any safety margin, is at least the real templated count of every prompt.
 */
describe("the Qwen3 prompt count against Qwen3's chat template and tokenizer", () => {
  let counter: TokenCounter;
  let reference: QwenReference;
  beforeAll(async () => {
    counter = createTokenCounter({ cacheCharacters: 0 });
    await counter.prepare(['qwen3']);
    reference = createQwenReference();
  }, 60_000);

  const check = async (file: string): Promise<void> => {
    for (const entry of readPromptEntries(file)) {
      for (const tools of [undefined, SAMPLE_TOOLS]) {
        const ours = await counter.countChat(
          { messages: entry.messages, tools },
          { tokenizers: ['qwen3'], safetyMargin: 0 },
        );
        const real = reference.countChat(entry.messages, tools);
        expect(ours.tokens, `${entry.id} ${tools === undefined ? '' : 'with tools'}`).toBeGreaterThanOrEqual(
          real,
        );
        expect(ours.tokens - real, entry.id).toBeLessThanOrEqual(Math.max(16, real * 0.02));
      }
    }
  };

  it('never counts fewer tokens than the real prompt of an eval prompt, with or without tools', async () => {
    await check('eval/prompts.jsonl');
  }, 120_000);

  it.skipIf(!existsSync(DEV_SET))(
    'never counts fewer tokens than the real prompt of a dev prompt',
    async () => {
      await check(DEV_SET);
    },
    120_000,
  );
});
