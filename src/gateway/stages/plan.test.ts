import { describe, expect, it } from 'vitest';
import { testDecision, testExchange } from '../../../test/helpers/exchange-fixtures.js';
import { chatCall } from '../../endpoints/chat.js';
import type { ChatRequest } from '../chat-request.js';
import type { Exchange } from '../exchange.js';
import type { GatewayParts, RoutedEndpoint } from '../routed-endpoint.js';
import { planStage } from './plan.js';

/** Only passed through to the endpoint: the stage reads none of it. */
const parts = { now: () => 0 } as unknown as GatewayParts;
const request: ChatRequest = { model: 'auto', messages: [{ role: 'user', content: 'hi' }] };

function planningEndpoint(): RoutedEndpoint<ChatRequest> & { seen: unknown[][] } {
  const seen: unknown[][] = [];
  return {
    ...chatCall,
    seen,
    plan: (...args: [ChatRequest, Exchange<ChatRequest>, GatewayParts]) => {
      seen.push(args);
      return Promise.resolve(testDecision({ maxTokens: 77 }));
    },
  };
}

describe('the plan stage', () => {
  it("sets the endpoint's decision for the parsed request", async () => {
    const endpoint = planningEndpoint();
    const exchange = testExchange<ChatRequest>();
    exchange.request = request;
    await planStage(endpoint, parts).run(exchange);
    expect(exchange.decision?.maxTokens).toBe(77);
    expect(exchange.decision?.plan.tier).toBe('SIMPLE');
    expect(endpoint.seen).toEqual([[request, exchange, parts]]);
  });

  it('fails as a programming error when no stage before it set the request, without planning', async () => {
    const endpoint = planningEndpoint();
    await expect(planStage(endpoint, parts).run(testExchange<ChatRequest>())).rejects.toThrow(
      'stage plan needs exchange.request, which no earlier stage set',
    );
    expect(endpoint.seen).toEqual([]);
  });
});
