import { describe, expect, it } from 'vitest';
import { deployment } from '../../../test/helpers/balance-fixtures.js';
import {
  RECEIVED_AT,
  testDecision,
  testExchange,
  testResult,
  testTable,
} from '../../../test/helpers/exchange-fixtures.js';
import type { Balancer, ExecuteRequest } from '../../balance/balancer.js';
import type { LoadedTable } from '../../config/load-routing-table.js';
import { chatCall } from '../../endpoints/chat.js';
import type { RouteDecision } from '../../routing/decide-route.js';
import { RouterError } from '../../shared/errors.js';
import type { ChatRequest } from '../chat-request.js';
import type { RoutedEndpoint } from '../routed-endpoint.js';
import { balanceStage } from './balance.js';

function setUp(endpoint: RoutedEndpoint<ChatRequest> = chatCall, failure?: Error) {
  const executed: ExecuteRequest[] = [];
  const committed: [RouteDecision, LoadedTable][] = [];
  const result = testResult([]);
  const balancer: Balancer = {
    execute(request) {
      executed.push(request);
      return failure === undefined ? Promise.resolve(result) : Promise.reject(failure);
    },
  };
  const stage = balanceStage(endpoint, {
    balancer,
    onCommitted: (decision, loaded) => {
      committed.push([decision, loaded]);
      return Promise.resolve();
    },
  });
  const exchange = testExchange<ChatRequest>();
  exchange.loaded = testTable();
  exchange.request = { model: 'auto', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5000 };
  exchange.decision = testDecision();
  return { stage, exchange, executed, committed, result };
}

describe('the balance stage', () => {
  it("runs the balancer on the decision's plan until the whole answer commits, and keeps its result", async () => {
    const { stage, exchange, executed, result } = setUp();
    await stage.run(exchange);
    expect(exchange.result).toBe(result);
    const [request] = executed;
    expect(executed).toHaveLength(1);
    expect(request).toMatchObject({
      path: '/chat/completions',
      commit: 'complete',
      requestId: 'request-1',
      startedAt: RECEIVED_AT,
      promptTokens: 10,
    });
    expect(request?.plan).toBe(exchange.decision?.plan);
    expect(request?.signal).toBe(exchange.signal);
    expect(request?.answer).toBeUndefined();
    // the tier's max_tokens, not the client's 5000, and the deployment's model
    expect(JSON.parse(request?.toBody(deployment('a', { model: 'served-a' })) ?? '')).toMatchObject({
      model: 'served-a',
      max_tokens: 100,
    });
  });

  it('commits a stream at its first content', async () => {
    const { stage, exchange, executed } = setUp();
    exchange.stream = true;
    await stage.run(exchange);
    expect(executed[0]?.commit).toBe('first_content');
  });

  it("raises the session's ladder after a committed answer only for an endpoint that does so", async () => {
    const chat = setUp();
    await chat.stage.run(chat.exchange);
    expect(chat.committed).toEqual([[chat.exchange.decision, chat.exchange.loaded]]);
    const other = setUp({ ...chatCall, raisesSessionTier: false });
    await other.stage.run(other.exchange);
    expect(other.committed).toEqual([]);
  });

  it('asks for one JSON answer for an endpoint with its own answer', async () => {
    const toAnswer = () => () => ({ body: {}, usage: undefined });
    const { stage, exchange, executed } = setUp({ ...chatCall, toAnswer });
    await stage.run(exchange);
    expect(executed[0]?.answer).toBe('json');
  });

  it("lets the balancer's failure out, with no result and no session raise", async () => {
    const failure = new RouterError({ code: 'ALL_DEPLOYMENTS_FAILED', message: 'no deployment answered' });
    const { stage, exchange, committed } = setUp(chatCall, failure);
    await expect(stage.run(exchange)).rejects.toBe(failure);
    expect(exchange.result).toBeUndefined();
    expect(committed).toEqual([]);
  });
});
