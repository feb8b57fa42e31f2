import { describe, expect, it } from 'vitest';
import {
  createRecordingLimiter,
  testDecision,
  testExchange,
  testKey,
} from '../../../test/helpers/exchange-fixtures.js';
import { chatCall } from '../../endpoints/chat.js';
import { acquireRequestSlot } from '../../policy/key-concurrency.js';
import { createManualClock } from '../../shared/clock.js';
import { RouterError } from '../../shared/errors.js';
import { createMemoryStateStore } from '../../state/create-memory-state-store.js';
import type { ChatRequest } from '../chat-request.js';
import { reserveStage } from './reserve.js';

const key = testKey({ max_concurrent_requests: 1 });

function setUp(limiter = createRecordingLimiter()) {
  const store = createMemoryStateStore({ clock: createManualClock(0) });
  const stage = reserveStage(chatCall, { store, limiter });
  const exchange = testExchange<ChatRequest>();
  exchange.key = key;
  exchange.stream = true;
  exchange.request = { model: 'auto', messages: [{ role: 'user', content: 'hi' }], n: 3 };
  exchange.decision = testDecision();
  /** Whether the key's one concurrent-request slot is free now (takes and frees it when it is). */
  const slotFree = async (): Promise<boolean> => {
    try {
      await (
        await acquireRequestSlot(store, { key, ttlMs: 1000 })
      )();
      return true;
    } catch (error) {
      if (error instanceof RouterError && error.code === 'RATE_LIMITED') return false;
      throw error;
    }
  };
  return { stage, exchange, limiter, slotFree };
}

describe('the reserve stage', () => {
  it('reserves nothing in open mode (no key)', async () => {
    const { stage, exchange, limiter, slotFree } = setUp();
    exchange.key = undefined;
    await stage.run(exchange);
    expect(exchange.admission).toBeUndefined();
    expect(limiter.calls).toEqual([]);
    expect(await slotFree()).toBe(true);
  });

  it("reserves the plan's most: prompt + max_tokens for every sequence, for the tier's total time", async () => {
    const { stage, exchange, limiter } = setUp();
    await stage.run(exchange);
    expect(limiter.calls).toEqual(['bookTokens:alice:0', 'admitTokens:alice']);
    expect(limiter.reservations).toEqual([
      { promptTokens: 10, maxCompletionTokens: 300, stream: true, totalMs: 4000 },
    ]);
  });

  it("holds one of the key's concurrent slots until finish, which frees it and charges what was spent", async () => {
    const { stage, exchange, limiter, slotFree } = setUp();
    await stage.run(exchange);
    expect(await slotFree()).toBe(false);
    await exchange.admission?.finish({ promptTokens: 10, completionTokens: 42 });
    expect(await slotFree()).toBe(true);
    expect(limiter.finished).toEqual([{ promptTokens: 10, completionTokens: 42 }]);
  });

  it('frees the slot when the token reservation is refused, and lets the refusal out', async () => {
    const refusal = new RouterError({ code: 'RATE_LIMITED', message: 'token limit reached' });
    const { stage, exchange, slotFree } = setUp(createRecordingLimiter({ admitTokens: refusal }));
    await expect(stage.run(exchange)).rejects.toBe(refusal);
    expect(exchange.admission).toBeUndefined();
    expect(await slotFree()).toBe(true);
  });

  it('refuses a request over the concurrent cap before reserving its tokens', async () => {
    const { stage, exchange, limiter } = setUp();
    await stage.run(exchange);
    const second = testExchange<ChatRequest>();
    Object.assign(second, { key, request: exchange.request, decision: exchange.decision });
    await expect(stage.run(second)).rejects.toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(limiter.reservations).toHaveLength(1);
  });
});
