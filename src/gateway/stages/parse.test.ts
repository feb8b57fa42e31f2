import { describe, expect, it } from 'vitest';
import { testExchange, testTable } from '../../../test/helpers/exchange-fixtures.js';
import type { LoadedTable } from '../../config/load-routing-table.js';
import { chatCall } from '../../endpoints/chat.js';
import type { ChatRequest } from '../chat-request.js';
import { parseStage } from './parse.js';

const messages = [
  { role: 'user', content: 'First question' },
  { role: 'assistant', content: 'An answer' },
  { role: 'user', content: 'Second question' },
];

async function parse(body: Record<string, unknown>, loaded: LoadedTable = testTable()) {
  const exchange = testExchange<ChatRequest>();
  exchange.body = body;
  await parseStage(chatCall, () => loaded).run(exchange);
  return exchange;
}

function rejection(body: Record<string, unknown>, loaded?: LoadedTable): Promise<unknown> {
  return parse(body, loaded).then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('the parse stage', () => {
  it('sets the checked request and the stream flag', async () => {
    const exchange = await parse({ model: 'auto', messages, stream: true, max_tokens: 20 });
    expect(exchange.stream).toBe(true);
    expect(exchange.request).toMatchObject({ model: 'auto', stream: true, max_tokens: 20 });
    expect(exchange.request?.messages).toHaveLength(3);
  });

  it('reads the stream flag from the raw body, even when the body then fails its schema', async () => {
    const exchange = testExchange<ChatRequest>();
    exchange.body = { model: 'auto', messages: 'not a list', stream: true };
    const run = async (): Promise<void> => parseStage(chatCall, testTable).run(exchange);
    await expect(run()).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
      status: 400,
      param: 'messages',
    });
    expect(exchange.stream).toBe(true);
    expect(exchange.request).toBeUndefined();
  });

  it("refuses a field the endpoint does not accept with a 400 naming it, unless the table's client_fields allow it", async () => {
    const body = { model: 'auto', messages, frobnicate: 1 };
    expect(await rejection(body)).toMatchObject({
      code: 'INVALID_REQUEST',
      status: 400,
      param: 'frobnicate',
    });
    const allowed = await parse(body, testTable({ client_fields: ['frobnicate'] }));
    expect(allowed.request).toMatchObject({ frobnicate: 1 });
  });

  it('keeps the prompt text only when content logging is on', async () => {
    expect((await parse({ model: 'auto', messages }, testTable({ log_content: true }))).prompt).toBe(
      'Second question',
    );
    expect((await parse({ model: 'auto', messages })).prompt).toBeUndefined();
  });

  it('fixes the table in force when it runs: a later reload does not change it', async () => {
    const first = testTable();
    const second = testTable({ log_content: true });
    let current = first;
    const stage = parseStage(chatCall, () => current);
    const exchange = testExchange<ChatRequest>();
    exchange.body = { model: 'auto', messages };
    await stage.run(exchange);
    current = second;
    const later = testExchange<ChatRequest>();
    later.body = { model: 'auto', messages };
    await stage.run(later);
    expect(exchange.loaded).toBe(first);
    expect(later.loaded).toBe(second);
  });
});
