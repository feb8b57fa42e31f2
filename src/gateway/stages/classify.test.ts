import { describe, expect, it } from 'vitest';
import { testExchange } from '../../../test/helpers/exchange-fixtures.js';
import { chatCall } from '../../endpoints/chat.js';
import type { Classified } from '../../routing/decide-route.js';
import type { ChatRequest } from '../chat-request.js';
import type { Exchange } from '../exchange.js';
import type { GatewayParts, RoutedEndpoint } from '../routed-endpoint.js';
import { classifyStage } from './classify.js';

/** Only passed through to the endpoint: the stage reads none of it. */
const parts = { now: () => 0 } as unknown as GatewayParts;
const request: ChatRequest = { model: 'auto', messages: [{ role: 'user', content: 'hi' }] };
const classified: Classified = {
  count: { byTokenizer: new Map(), tokens: 3, estimated: false },
  target: { kind: 'alias', tier: 'COMPLEX', rules: [] },
  auto: undefined,
};

describe('the classify stage', () => {
  it('is left out for an endpoint that is not classified', () => {
    const { classify: _classify, ...unclassified } = chatCall;
    expect(classifyStage(unclassified, parts)).toBeUndefined();
  });

  it("sets the endpoint's classification of the parsed request", async () => {
    const seen: [ChatRequest, Exchange<ChatRequest>, GatewayParts][] = [];
    const endpoint: RoutedEndpoint<ChatRequest> = {
      ...chatCall,
      classify: (...args) => {
        seen.push(args);
        return Promise.resolve(classified);
      },
    };
    const exchange = testExchange<ChatRequest>();
    exchange.request = request;
    const stage = classifyStage(endpoint, parts);
    expect(stage?.name).toBe('classify');
    await stage?.run(exchange);
    expect(exchange.classified).toBe(classified);
    expect(seen).toEqual([[request, exchange, parts]]);
  });

  it('needs the parsed request', async () => {
    const stage = classifyStage(chatCall, parts);
    await expect(async () => stage?.run(testExchange<ChatRequest>())).rejects.toThrow(
      'stage classify needs exchange.request, which no earlier stage set',
    );
  });
});
