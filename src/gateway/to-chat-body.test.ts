import { describe, expect, it } from 'vitest';
import { RouterError } from '../shared/errors.js';
import { parseResponsesRequest } from './responses-request.js';
import { toChatBody } from './to-chat-body.js';

const translate = (body: Record<string, unknown>) =>
  toChatBody(parseResponsesRequest({ model: 'auto', ...body }));

function paramOf(body: Record<string, unknown>): string | undefined {
  try {
    translate(body);
  } catch (error) {
    if (error instanceof RouterError && error.code === 'INVALID_REQUEST') return error.param;
    throw error;
  }
  return undefined;
}

describe('toChatBody (a Responses request as the chat request it stands for)', () => {
  it('makes a string input a user message after the instructions as a system message', () => {
    const chat = translate({
      input: 'Hi',
      instructions: 'Be brief.',
      max_output_tokens: 50,
      temperature: 0.2,
    });
    expect(chat.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ]);
    expect(chat).toMatchObject({ model: 'auto', max_tokens: 50, temperature: 0.2, stream: false });
    expect(chat).not.toHaveProperty('input');
    expect(chat).not.toHaveProperty('instructions');
  });

  it('translates message items with text and image parts, developer as system', () => {
    const chat = translate({
      input: [
        { role: 'developer', content: 'Rules.' },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is this?' },
            { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'low' },
          ],
        },
        { role: 'assistant', content: [{ type: 'output_text', text: 'A square.' }] },
      ],
    });
    expect(chat.messages).toEqual([
      { role: 'system', content: 'Rules.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'A square.' }] },
    ]);
  });

  it('folds function calls into one assistant turn and their outputs into tool messages', () => {
    const chat = translate({
      input: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'c2', name: 'weather', arguments: '{"city":"Rome"}' },
        { type: 'function_call_output', call_id: 'c1', output: '21' },
        { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: '25' }] },
        { type: 'item_reference', id: 'rs_2' },
      ],
    });
    expect(chat.messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
          { id: 'c2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '21' },
      { role: 'tool', tool_call_id: 'c2', content: '25' },
    ]);
  });

  it('adds a function call to the assistant message just before it (text, then a call)', () => {
    const chat = translate({
      input: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Let me look.' },
        { type: 'function_call', call_id: 'c1', name: 'look', arguments: '{}' },
      ],
    });
    expect(chat.messages[1]).toEqual({
      role: 'assistant',
      content: 'Let me look.',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: '{}' } }],
    });
  });

  it('translates flat function tools, tool_choice, text.format and reasoning effort', () => {
    const parameters = { type: 'object', properties: { city: { type: 'string' } } };
    const chat = translate({
      input: 'Hi',
      tools: [{ type: 'function', name: 'weather', description: 'Weather', parameters, strict: true }],
      tool_choice: { type: 'function', name: 'weather' },
      text: { format: { type: 'json_schema', name: 'answer', schema: parameters, strict: true } },
      reasoning: { effort: 'high', summary: 'auto' },
      parallel_tool_calls: false,
    });
    expect(chat['tools']).toEqual([
      { type: 'function', function: { name: 'weather', description: 'Weather', parameters, strict: true } },
    ]);
    expect(chat['tool_choice']).toEqual({ type: 'function', function: { name: 'weather' } });
    expect(chat['response_format']).toEqual({
      type: 'json_schema',
      json_schema: { name: 'answer', schema: parameters, strict: true },
    });
    expect(chat['reasoning_effort']).toBe('high');
    expect(chat['parallel_tool_calls']).toBe(false);
    expect(translate({ input: 'Hi', text: { format: { type: 'json_object' } } })['response_format']).toEqual({
      type: 'json_object',
    });
    expect(translate({ input: 'Hi', reasoning: { effort: 'minimal' } })).not.toHaveProperty(
      'reasoning_effort',
    );
  });

  it('drops tool_choice without tools, keeps unknown fields (vLLM extras) and drops Responses-only ones', () => {
    const chat = translate({
      input: 'Hi',
      tool_choice: 'auto',
      top_k: 20,
      chat_template_kwargs: { enable_thinking: false },
      store: true,
      metadata: { app: 'x' },
      service_tier: 'auto',
      user: 'u1',
    });
    expect(chat).not.toHaveProperty('tool_choice');
    expect(chat).not.toHaveProperty('store');
    expect(chat).not.toHaveProperty('metadata');
    expect(chat).not.toHaveProperty('service_tier');
    expect(chat).toMatchObject({ top_k: 20, chat_template_kwargs: { enable_thinking: false }, user: 'u1' });
  });

  it('refuses what chat completions cannot carry, naming the exact field', () => {
    expect(paramOf({ input: [{ type: 'item_reference', id: 'msg_1' }] })).toBe('input[0].id');
    expect(paramOf({ input: [{ type: 'computer_call_output' }] })).toBe('input[0].type');
    expect(paramOf({ input: [{ role: 'user', content: [{ type: 'input_audio' }] }] })).toBe(
      'input[0].content[0].type',
    );
    expect(paramOf({ input: [{ type: 'function_call', name: 'x', arguments: '{}' }] })).toBe(
      'input[0].call_id',
    );
    expect(
      paramOf({
        input: [
          { type: 'function_call_output', call_id: 'c', output: [{ type: 'input_image', image_url: 'x' }] },
        ],
      }),
    ).toBe('input[0].output[0]');
    expect(paramOf({ input: [{ type: 'reasoning', summary: [] }] })).toBe('input');
    expect(paramOf({ input: 'x', tools: [{ type: 'function' }] })).toBe('tools[0].name');
    expect(paramOf({ input: 'x', tools: [{ type: 'mcp', server_label: 's' }] })).toBe('tools[0].type');
    expect(
      paramOf({
        input: 'x',
        tools: [{ type: 'function', name: 'f' }],
        tool_choice: { type: 'allowed_tools' },
      }),
    ).toBe('tool_choice');
  });

  it('bounds content parts per item like chat does', () => {
    const content = Array.from({ length: 1001 }, () => ({ type: 'input_text', text: 'x' }));
    expect(paramOf({ input: [{ role: 'user', content }] })).toBe('input[0].content');
  });
});
