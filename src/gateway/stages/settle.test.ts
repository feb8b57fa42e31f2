import { describe, expect, it } from 'vitest';
import {
  RECEIVED_AT,
  testDecision,
  testExchange,
  testKey,
  testResult,
} from '../../../test/helpers/exchange-fixtures.js';
import type { RequestSummary } from '../../observe/request-summary.js';
import type { SpentTokens } from '../../policy/api-keys.js';
import { createManualClock } from '../../shared/clock.js';
import { RouterError } from '../../shared/errors.js';
import type { Exchange } from '../exchange.js';
import type { StageEvent } from '../stages.js';
import { createSettle, toCharge } from './settle.js';

const usage = { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 };

function setUp() {
  const summaries: RequestSummary[] = [];
  const events: StageEvent[] = [];
  const clock = createManualClock(RECEIVED_AT + 250);
  const settle = createSettle({
    clock,
    observer: { onRequest: (summary) => summaries.push(summary) },
    onStage: (event) => events.push(event),
  });
  const charged: SpentTokens[] = [];
  const exchange = testExchange();
  exchange.endpoint = 'chat';
  exchange.key = testKey();
  exchange.admission = {
    finish: (spent: SpentTokens) => {
      charged.push(spent);
      return Promise.resolve();
    },
  };
  return { settle, exchange, summaries, events, charged };
}

/** An exchange that went through the whole pipeline and was answered with `usage`. */
function answered(exchange: Exchange): Exchange {
  exchange.decision = testDecision();
  exchange.result = testResult([]);
  exchange.timings = { parse: 1, plan: 1, reserve: 1, balance: 40, answer: 1 };
  exchange.usage = { usage, generatedChars: 20 };
  return exchange;
}

describe('toCharge (what a key is charged at settle)', () => {
  it('charges nothing for a request stopped before its decision', () => {
    expect(toCharge(testExchange())).toEqual({ promptTokens: 0, completionTokens: 0 });
  });

  it('charges the prompt at the decision count, no completion, when the balancer failed', () => {
    const exchange = testExchange();
    exchange.decision = testDecision();
    expect(toCharge(exchange)).toEqual({ promptTokens: 0, completionTokens: 0 });
    exchange.timings.balance = 30;
    expect(toCharge(exchange)).toEqual({ promptTokens: 10, completionTokens: 0 });
  });

  it('charges the usage an answer reported', () => {
    expect(toCharge(answered(testExchange()))).toEqual({ promptTokens: 12, completionTokens: 7 });
  });
});

describe('settle', () => {
  it('ends a routed request: frees the admission with its charge, reports one routed summary and one stage event', () => {
    const { settle, exchange, summaries, events, charged } = setUp();
    answered(exchange);
    settle(exchange, { status: 200, error: undefined });
    expect(exchange.outcome).toEqual({ status: 200, error: undefined });
    expect(exchange.admission).toBeUndefined();
    expect(charged).toEqual([{ promptTokens: 12, completionTokens: 7 }]);
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({
      requestId: 'request-1',
      keyName: 'alice',
      endpoint: 'chat',
      outcome: 'routed',
      tier: 'SIMPLE',
      deployment: 'a',
      status: 200,
      errorCode: undefined,
      attempts: 1,
      ttftMs: 50,
      durationMs: 250,
      promptTokens: 12,
      promptTokenStatus: 'confirmed',
      completionTokens: 7,
      tokenStatus: 'confirmed',
    });
    expect(events).toEqual([{ stage: 'settle', endpoint: 'chat', exchange, ms: 0, error: undefined }]);
    expect(exchange.timings.settle).toBe(0);
  });

  it('reports a request stopped before its decision as rejected, with its error, and charges nothing', () => {
    const { settle, exchange, summaries, events, charged } = setUp();
    const error = new RouterError({ code: 'RATE_LIMITED', message: 'rate limit reached: 1 rpm' });
    settle(exchange, { status: 429, error });
    expect(charged).toEqual([{ promptTokens: 0, completionTokens: 0 }]);
    expect(summaries[0]).toMatchObject({
      outcome: 'rejected',
      tier: undefined,
      status: 429,
      errorCode: 'RATE_LIMITED',
      errorMessage: 'rate limit reached: 1 rpm',
      promptTokens: undefined,
    });
    expect(events).toEqual([{ stage: 'settle', endpoint: 'chat', exchange, ms: 0, error }]);
  });

  it('runs once: a second settle of the same exchange does nothing', () => {
    const { settle, exchange, summaries, events, charged } = setUp();
    answered(exchange);
    settle(exchange, { status: 200, error: undefined });
    settle(exchange, { status: 500, error: new Error('late') });
    expect(exchange.outcome).toEqual({ status: 200, error: undefined });
    expect(summaries.map((summary) => summary.status)).toEqual([200]);
    expect(events).toHaveLength(1);
    expect(charged).toHaveLength(1);
  });
});
