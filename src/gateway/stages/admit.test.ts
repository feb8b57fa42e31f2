import { describe, expect, it } from 'vitest';
import { createRecordingLimiter, testExchange, testKey } from '../../../test/helpers/exchange-fixtures.js';
import { RouterError } from '../../shared/errors.js';
import { admitStage } from './admit.js';

describe('the admit stage', () => {
  it('asks nothing of the limiter in open mode (no key)', async () => {
    const limiter = createRecordingLimiter();
    await admitStage(limiter, { checkTokens: true }).run(testExchange());
    expect(limiter.calls).toEqual([]);
  });

  it("counts the request against its key's requests per minute", async () => {
    const limiter = createRecordingLimiter();
    const exchange = testExchange();
    exchange.key = testKey();
    await admitStage(limiter, { checkTokens: false }).run(exchange);
    expect(limiter.calls).toEqual(['admitRequest:alice']);
  });

  it('also checks the tokens left in the minute when asked to (the decision-only endpoint)', async () => {
    const limiter = createRecordingLimiter();
    const exchange = testExchange();
    exchange.key = testKey();
    await admitStage(limiter, { checkTokens: true }).run(exchange);
    expect(limiter.calls).toEqual(['admitRequest:alice', 'checkTokens:alice']);
  });

  it("lets the limiter's refusal out, and checks no tokens after it", async () => {
    const limiter = createRecordingLimiter();
    const refusal = new RouterError({ code: 'RATE_LIMITED', message: 'rate limit reached: 1 rpm' });
    limiter.admitRequest = () => Promise.reject(refusal);
    const exchange = testExchange();
    exchange.key = testKey();
    await expect(admitStage(limiter, { checkTokens: true }).run(exchange)).rejects.toBe(refusal);
    expect(limiter.calls).toEqual([]);
  });
});
