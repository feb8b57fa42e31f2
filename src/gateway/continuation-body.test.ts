import { describe, expect, it } from 'vitest';
import { tierSchema } from '../config/table-part-schemas.js';
import { deployment } from '../../test/helpers/balance-fixtures.js';
import { toContinuationBodyMaker } from './continuation-body.js';

const tierConfig = tierSchema.parse({
  group: ['a'],
  extra_body: { chat_template_kwargs: { enable_thinking: false } },
});
const user = { role: 'user' as const, content: 'Explain it.' };

const parse = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

function make(request: Record<string, unknown>) {
  return toContinuationBodyMaker({
    request: { messages: [user], model: 'auto', ...request },
    tierConfig,
    maxTokens: 100,
  });
}

describe('the body that continues a broken chat answer', () => {
  it('is the same request plus the delivered text as a final assistant message, continued, with fewer max_tokens', () => {
    const maker = make({ temperature: 0.2, stream: true });
    const body = parse(
      maker?.(deployment('b', { model: 'served-b' }), { prefix: 'Half an', completionTokens: 30 }) ?? '',
    );
    expect(body).toMatchObject({
      model: 'served-b',
      temperature: 0.2,
      messages: [user, { role: 'assistant', content: 'Half an' }],
      continue_final_message: true,
      add_generation_prompt: false,
      max_tokens: 70,
      stream: true,
      chat_template_kwargs: { enable_thinking: false },
    });
  });

  it("extends a client's own prefill", () => {
    const maker = make({
      messages: [user, { role: 'assistant', content: '{"a":' }],
      continue_final_message: true,
      add_generation_prompt: false,
    });
    const body = parse(maker?.(deployment('b'), { prefix: ' 1', completionTokens: 1 }) ?? '');
    expect(body['messages']).toEqual([user, { role: 'assistant', content: '{"a": 1' }]);
  });

  it('never lowers max_tokens below 1', () => {
    const body = parse(make({})?.(deployment('b'), { prefix: 'x', completionTokens: 500 }) ?? '');
    expect(body['max_tokens']).toBe(1);
  });

  it('is not offered where a continuation would not be the same answer', () => {
    expect(make({ n: 2 })).toBeUndefined();
    expect(
      make({ response_format: { type: 'json_schema', json_schema: { name: 'x', schema: {} } } }),
    ).toBeUndefined();
    expect(make({ response_format: { type: 'json_object' } })).toBeUndefined();
    expect(make({ guided_json: { type: 'object' } })).toBeUndefined();
    expect(make({ echo: true })).toBeUndefined();
    expect(
      make({ messages: [user, { role: 'assistant', content: 'prefill without the flag' }] }),
    ).toBeUndefined();
    expect(make({ response_format: { type: 'text' }, n: 1 })).toBeDefined();
  });
});
