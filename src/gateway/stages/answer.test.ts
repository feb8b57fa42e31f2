import { describe, expect, it } from 'vitest';
import {
  RECEIVED_AT,
  testDecision,
  testExchange,
  testResult,
} from '../../../test/helpers/exchange-fixtures.js';
import { chatCall } from '../../endpoints/chat.js';
import { createManualClock } from '../../shared/clock.js';
import type { ChatChunk } from '../../upstream/chat-chunk.js';
import type { ChatRequest } from '../chat-request.js';
import type { Exchange, Outcome } from '../exchange.js';
import type { RoutedEndpoint } from '../routed-endpoint.js';
import { answerStage } from './answer.js';

const usage = { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 };
const HELLO: ChatChunk[] = [
  {
    id: 'c1',
    model: 'sim-model',
    created: 5,
    choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' } }],
  },
  {
    id: 'c1',
    model: 'sim-model',
    created: 5,
    choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: 'stop' }],
  },
];
const USAGE_ONLY: ChatChunk = { id: 'c1', model: 'sim-model', created: 5, choices: [], usage };

function setUp(endpoint: RoutedEndpoint<ChatRequest> = chatCall) {
  const settled: [Exchange, Outcome][] = [];
  // 45 ms after arrival, 40 of them waiting upstream (testResult)
  const clock = createManualClock(RECEIVED_AT + 45);
  const stage = answerStage(endpoint, { clock, settle: (...args) => settled.push(args) });
  const exchange = testExchange<ChatRequest>();
  exchange.request = { model: 'auto', messages: [{ role: 'user', content: 'hi' }] };
  exchange.decision = testDecision();
  return { stage, exchange, settled };
}

describe('the answer stage', () => {
  it('assembles a chat completion as one JSON body, with the route headers and its usage', async () => {
    const { stage, exchange, settled } = setUp();
    exchange.result = testResult([...HELLO, USAGE_ONLY]);
    await stage.run(exchange);
    expect(exchange.answer).toMatchObject({ kind: 'json', status: 200, stallMs: 900 });
    const answer = exchange.answer?.kind === 'json' ? exchange.answer : undefined;
    expect(answer?.body).toMatchObject({
      id: 'c1',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, finish_reason: 'stop' }],
      usage,
    });
    expect(answer?.headers).toMatchObject({
      'x-request-id': 'request-1',
      'x-autotier-tier': 'SIMPLE',
      'x-autotier-deployment': 'a',
      'x-autotier-attempts': '1',
      'x-autotier-overhead-ms': '5.00',
    });
    expect(exchange.usage).toEqual({ usage, generatedChars: 5, completionText: undefined });
    expect(settled).toEqual([]);
  });

  it('keeps the answer text for the log only when the prompt was kept', async () => {
    const { stage, exchange } = setUp();
    exchange.result = testResult(HELLO);
    exchange.prompt = 'hi';
    await stage.run(exchange);
    expect(exchange.usage).toEqual({ usage: undefined, generatedChars: 5, completionText: 'Hello' });
  });

  it('streams from the commit point, and settles the request once when the stream ends', async () => {
    const { stage, exchange, settled } = setUp();
    exchange.stream = true;
    exchange.result = testResult(HELLO.slice(0, 1), [HELLO.slice(1), [USAGE_ONLY]]);
    await stage.run(exchange);
    const answer = exchange.answer?.kind === 'stream' ? exchange.answer : undefined;
    expect(answer?.headers['x-autotier-deployment']).toBe('a');
    expect(answer?.stallMs).toBe(900);
    expect(settled).toEqual([]);
    let text = '';
    for await (const part of answer?.events ?? []) text += part;
    // no stream_options.include_usage: the usage-only chunk is not sent
    expect(text).toBe(
      `data: ${JSON.stringify(HELLO[0])}\n\ndata: ${JSON.stringify(HELLO[1])}\n\ndata: [DONE]\n\n`,
    );
    expect(settled).toEqual([[exchange, { status: 200, error: undefined }]]);
    expect(exchange.usage).toEqual({ usage, generatedChars: 5, completionText: '' });
  });

  it("answers with an endpoint's own JSON and its usage when it builds its answer", async () => {
    const body = { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.5] }] };
    const own = { prompt_tokens: 3, completion_tokens: 0, total_tokens: 3 };
    const { stage, exchange } = setUp({ ...chatCall, toAnswer: () => () => ({ body, usage: own }) });
    exchange.result = testResult([]);
    await stage.run(exchange);
    expect(exchange.answer).toMatchObject({ kind: 'json', status: 200, body });
    expect(exchange.usage).toEqual({ usage: own, generatedChars: 0, completionText: undefined });
  });

  it('needs the result of the balance stage', async () => {
    const { stage, exchange } = setUp();
    const run = async (): Promise<void> => stage.run(exchange);
    await expect(run()).rejects.toThrow('stage answer needs exchange.result, which no earlier stage set');
  });
});
