import { describe, expect, it } from 'vitest';
import { RouterError } from '../shared/errors.js';
import { parseResponsesRequest } from './responses-request.js';

function refusal(body: Record<string, unknown>): { param: string | undefined; message: string } | undefined {
  try {
    parseResponsesRequest({ model: 'auto', input: 'hi', ...body });
  } catch (error) {
    if (error instanceof RouterError) return { param: error.param, message: error.message };
    throw error;
  }
  return undefined;
}

describe('parseResponsesRequest', () => {
  it('refuses stateful and hosted features with a 400 naming the param and saying why', () => {
    const stateful = refusal({ previous_response_id: 'resp_1' });
    expect(stateful?.param).toBe('previous_response_id');
    expect(stateful?.message).toContain('does not store responses');
    for (const [param, value] of [
      ['background', true],
      ['conversation', { id: 'conv_1' }],
      ['prompt', { id: 'pmpt_1' }],
      ['include', ['reasoning.encrypted_content']],
      ['top_logprobs', 3],
      ['max_tool_calls', 2],
      ['truncation', 'auto'],
    ] as const)
      expect(refusal({ [param]: value })?.param).toBe(param);
  });

  it('accepts the defaults SDKs send for those fields (null, false, empty), and store: true', () => {
    expect(
      refusal({
        previous_response_id: null,
        background: false,
        include: [],
        truncation: 'disabled',
        store: true,
        metadata: { a: 'b' },
      }),
    ).toBeUndefined();
  });

  it('names a malformed field as OpenAI names params', () => {
    expect(refusal({ input: undefined })?.param).toBe('input');
    expect(refusal({ temperature: 3 })?.param).toBe('temperature');
    expect(refusal({ text: { format: { type: 'yaml' } } })?.param).toBe('text.format.type');
    expect(refusal({ tools: [{ name: 'x' }] })?.param).toBe('tools[0].type');
    expect(refusal({ metadata: { a: 1 } })?.param).toBe('metadata.a');
  });
});
