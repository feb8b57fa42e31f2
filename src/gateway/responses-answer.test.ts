import { describe, expect, it } from 'vitest';
import { deploymentSchema, tierSchema } from '../config/table-part-schemas.js';
import { shapeResponsesBody } from './responses-answer.js';

const deployment = deploymentSchema.parse({
  id: 'a',
  model: 'qwen3-8b',
  base_url: 'http://127.0.0.1:1/v1',
  context_window: 32768,
  responses: true,
  extra_body: { chat_template_kwargs: { enable_thinking: false }, top_k: 20 },
});
const tierConfig = tierSchema.parse({
  group: ['a'],
  system_prompt_prefix: 'House rules.',
  extra_body: { chat_template_kwargs: { enable_thinking: true } },
});

describe('shapeResponsesBody (the body sent natively to a deployment that serves /responses)', () => {
  it('sets the served model, capped max_output_tokens, stream, store off and the extras, prefix before instructions', () => {
    const body = JSON.parse(
      shapeResponsesBody({
        body: {
          model: 'auto',
          input: [
            { type: 'item_reference', id: 'rs_1' },
            { role: 'user', content: 'Hi' },
          ],
          instructions: 'Be brief.',
          max_output_tokens: 9999,
          store: true,
          chat_template_kwargs: { custom: 1 },
        },
        deployment,
        tierConfig,
        maxTokens: 512,
      }),
    ) as Record<string, unknown>;
    expect(body).toEqual({
      model: 'qwen3-8b',
      input: [{ role: 'user', content: 'Hi' }],
      instructions: 'House rules.\n\nBe brief.',
      max_output_tokens: 512,
      stream: true,
      store: false,
      top_k: 20,
      chat_template_kwargs: { custom: 1, enable_thinking: true },
    });
  });
});
