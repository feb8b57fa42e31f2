import { describe, expect, it } from 'vitest';
import { assembleChatCompletion } from './assemble-completion.js';

describe('assembleChatCompletion', () => {
  it('joins content, tool-call fragments, finish_reason and usage of a stream', () => {
    const completion = assembleChatCompletion([
      {
        id: 'c1',
        model: 'm',
        created: 5,
        choices: [{ index: 0, delta: { role: 'assistant', content: '' } }],
      },
      {
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                { index: 0, id: 't1', type: 'function', function: { name: 'get', arguments: '' } },
              ],
            },
          },
        ],
      },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] } }] },
      {
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, function: { arguments: ':1}' } }] },
            finish_reason: 'tool_calls',
          },
        ],
      },
      { choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } },
    ]);
    expect(completion).toEqual({
      id: 'c1',
      object: 'chat.completion',
      created: 5,
      model: 'm',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 't1', type: 'function', function: { name: 'get', arguments: '{"a":1}' } }],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
  });

  it('keeps n > 1 choices apart and reasoning separate from content', () => {
    const completion = assembleChatCompletion([
      {
        choices: [
          { index: 1, delta: { content: 'B' } },
          { index: 0, delta: { reasoning_content: 'think', content: 'A' } },
        ],
      },
      {
        choices: [
          { index: 0, delta: {}, finish_reason: 'stop' },
          { index: 1, delta: {}, finish_reason: 'length' },
        ],
      },
    ]) as {
      choices: {
        index: number;
        message: { content: string; reasoning_content?: string };
        finish_reason: string;
      }[];
    };
    expect(
      completion.choices.map((choice) => [choice.index, choice.message.content, choice.finish_reason]),
    ).toEqual([
      [0, 'A', 'stop'],
      [1, 'B', 'length'],
    ]);
    expect(completion.choices[0]?.message.reasoning_content).toBe('think');
  });
});

describe('assembleChatCompletion on a hostile upstream', () => {
  const toolDelta = (index: unknown, name: string): Record<string, unknown> => ({
    choices: [{ index: 0, delta: { tool_calls: [{ index, id: name, function: { name, arguments: '' } }] } }],
  });

  it('puts tool calls with an index that is not the next one at the end instead of at that index', () => {
    const chunks = [toolDelta(1e9, 'a'), toolDelta('__proto__', 'b'), toolDelta(-1, 'c'), toolDelta(0, 'a2')];
    const completion = assembleChatCompletion(chunks);
    const message = (completion['choices'] as { message: { tool_calls: { id: string }[] } }[])[0]?.message;
    expect(message?.tool_calls.map((call) => call.id)).toEqual(['a2', 'b', 'c']);
    expect(Object.prototype.hasOwnProperty.call(Array.prototype, 'id')).toBe(false);
    expect(JSON.stringify(completion).length).toBeLessThan(1000);
  });

  it('keeps 300,000 logprob entries of one chunk without overflowing the stack', () => {
    const content = Array.from({ length: 300_000 }, () => ({ token: 'x', logprob: 0 }));
    const completion = assembleChatCompletion([
      { choices: [{ index: 0, delta: { content: 'x' }, logprobs: { content } }] },
    ]);
    const logprobs = (completion['choices'] as { logprobs: { content: unknown[] } }[])[0]?.logprobs;
    expect(logprobs?.content).toHaveLength(300_000);
  });
});
