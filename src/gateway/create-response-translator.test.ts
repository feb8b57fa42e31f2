import { describe, expect, it } from 'vitest';
import type { ChatChunk } from '../upstream/chat-chunk.js';
import { createResponseTranslator, type ResponseEvent } from './create-response-translator.js';
import { parseResponsesRequest } from './responses-request.js';

const request = parseResponsesRequest({ model: 'auto', input: 'hi', instructions: 'Be brief.' });
const identity = { id: 'chatcmpl-abc123', created: 1700000000, model: 'qwen3-8b' };
const chunk = (delta: Record<string, unknown>, finish: string | null = null): ChatChunk => ({
  ...identity,
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const usage: ChatChunk = {
  ...identity,
  choices: [],
  usage: {
    prompt_tokens: 10,
    completion_tokens: 5,
    total_tokens: 15,
    completion_tokens_details: { reasoning_tokens: 2 },
  },
};

function run(chunks: readonly ChatChunk[]): { events: ResponseEvent[]; response: Record<string, unknown> } {
  const translator = createResponseTranslator({
    request,
    fallback: { id: 'request-1', createdAt: 1, model: 'fallback-model' },
  });
  const events = chunks.flatMap((each) => translator.push(each));
  events.push(...translator.finish());
  return { events, response: translator.response() };
}

describe('createResponseTranslator (chat chunks to Responses events)', () => {
  it("streams a text answer in OpenAI's order, numbered from 0, and ends with the whole Response", () => {
    const { events, response } = run([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hel' }),
      chunk({ content: 'lo' }),
      chunk({}, 'stop'),
      usage,
    ]);
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events[0]?.['response']).toMatchObject({
      id: 'resp_chatcmplabc123',
      status: 'in_progress',
      output: [],
    });
    expect(response).toMatchObject({
      id: 'resp_chatcmplabc123',
      object: 'response',
      created_at: 1700000000,
      status: 'completed',
      model: 'qwen3-8b',
      instructions: 'Be brief.',
      store: false,
      output: [
        {
          id: 'msg_chatcmplabc123',
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'Hello', annotations: [] }],
        },
      ],
      usage: {
        input_tokens: 10,
        output_tokens: 5,
        total_tokens: 15,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 2 },
      },
    });
    expect(events.at(-1)?.['response']).toEqual(response);
  });

  it('puts reasoning_content, and an inline <think> block, in a reasoning item before the message', () => {
    for (const chunks of [
      [
        chunk({ reasoning_content: 'Let me ' }),
        chunk({ reasoning_content: 'think.' }),
        chunk({ content: 'Yes.' }),
      ],
      [
        chunk({ content: '<think>Let me ' }),
        chunk({ content: 'think.</th' }),
        chunk({ content: 'ink>\n\nYes.' }),
      ],
    ]) {
      const { events, response } = run([...chunks, chunk({}, 'stop')]);
      expect(response['output']).toEqual([
        {
          id: 'rs_chatcmplabc123',
          type: 'reasoning',
          summary: [],
          content: [{ type: 'reasoning_text', text: 'Let me think.' }],
        },
        expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: 'Yes.' })] }),
      ]);
      const types = events.map((event) => event.type);
      expect(types).toContain('response.reasoning_text.delta');
      expect(types.indexOf('response.reasoning_text.done')).toBeLessThan(
        types.indexOf('response.output_text.delta'),
      );
    }
  });

  it('turns streamed tool calls into function_call items with call ids and whole arguments', () => {
    const { events, response } = run([
      chunk({
        tool_calls: [
          { index: 0, id: 'call_1', type: 'function', function: { name: 'weather', arguments: '' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({
        tool_calls: [
          { index: 1, id: 'call_2', type: 'function', function: { name: 'time', arguments: '{}' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(response['output']).toEqual([
      {
        id: 'fc_chatcmplabc123_0',
        type: 'function_call',
        status: 'completed',
        call_id: 'call_1',
        name: 'weather',
        arguments: '{"city":"Paris"}',
      },
      {
        id: 'fc_chatcmplabc123_1',
        type: 'function_call',
        status: 'completed',
        call_id: 'call_2',
        name: 'time',
        arguments: '{}',
      },
    ]);
    const added = events.filter((event) => event.type === 'response.output_item.added');
    expect(added.map((event) => event['item'])).toEqual([
      expect.objectContaining({ name: 'weather', call_id: 'call_1', arguments: '' }),
      expect.objectContaining({ name: 'time', call_id: 'call_2', arguments: '' }),
    ]);
    const deltas = events.filter((event) => event.type === 'response.function_call_arguments.delta');
    expect(
      deltas
        .filter((event) => event['output_index'] === 0)
        .map((event) => event['delta'])
        .join(''),
    ).toBe('{"city":"Paris"}');
    expect(events.filter((event) => event.type === 'response.function_call_arguments.done')).toHaveLength(2);
  });

  it('ends as response.incomplete with max_output_tokens when the answer hit its length', () => {
    const { events, response } = run([chunk({ content: 'Once upon' }), chunk({}, 'length')]);
    expect(events.at(-1)?.type).toBe('response.incomplete');
    expect(response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [expect.objectContaining({ status: 'incomplete' })],
    });
  });

  it('answers an empty reply with an empty message, and without any chunk names the response after the fallback', () => {
    const { response } = run([]);
    expect(response).toMatchObject({
      id: 'resp_request1',
      model: 'fallback-model',
      created_at: 1,
      output: [
        expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: '' })] }),
      ],
    });
  });

  it('ends a failed stream with an error event and response.failed holding what was produced', () => {
    const translator = createResponseTranslator({ request, fallback: { id: 'r', createdAt: 1, model: 'm' } });
    const events = [
      ...translator.push(chunk({ content: 'Hal' })),
      ...translator.fail({
        message: 'stream broken',
        type: 'api_error',
        code: 'upstream_stream_cut',
        param: null,
      }),
    ];
    expect(events.slice(-2)).toEqual([
      {
        type: 'error',
        sequence_number: 5,
        code: 'upstream_stream_cut',
        message: 'stream broken',
        param: null,
      },
      expect.objectContaining({ type: 'response.failed', sequence_number: 6 }),
    ]);
    expect(events.at(-1)?.['response']).toMatchObject({
      status: 'failed',
      error: { code: 'upstream_stream_cut', message: 'stream broken' },
      output: [expect.objectContaining({ type: 'message', status: 'in_progress' })],
    });
  });
});
