import { describe, expect, it } from 'vitest';
import { apiKeySchema, type ApiKeyConfig } from '../config/table-part-schemas.js';
import { createManualClock } from '../shared/clock.js';
import { RouterError } from '../shared/errors.js';
import { createMemoryStateStore } from '../state/create-memory-state-store.js';
import {
  authenticate,
  createKeyLimiter,
  hashKey,
  revealsInternal,
  toKeyIndex,
  type KeyAdmission,
} from './api-keys.js';

const key = (fields: Partial<ApiKeyConfig> & { secret: string }): ApiKeyConfig => {
  const { secret, ...rest } = fields;
  return apiKeySchema.parse({ name: 'team', sha256: hashKey(secret), ...rest });
};

async function rejection(promise: Promise<unknown>): Promise<RouterError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RouterError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('API key authentication', () => {
  const index = toKeyIndex([key({ secret: 'sk-good' })]);

  it('lets every request in when no key is configured (open mode)', () => {
    expect(authenticate(toKeyIndex([]), {})).toBeUndefined();
  });

  it('finds a key by its SHA-256 from a Bearer token or x-api-key', () => {
    expect(authenticate(index, { authorization: 'Bearer sk-good' })?.name).toBe('team');
    expect(authenticate(index, { apiKey: 'sk-good' })?.name).toBe('team');
  });

  it('answers 401 for a missing or unknown key', () => {
    expect(() => authenticate(index, {})).toThrow(
      expect.objectContaining({ code: 'UNAUTHORIZED', status: 401 }) as Error,
    );
    expect(() => authenticate(index, { authorization: 'Bearer sk-bad' })).toThrow(
      expect.objectContaining({ code: 'UNAUTHORIZED' }) as Error,
    );
  });
});

describe('per-key limits', () => {
  const setup = () => {
    const clock = createManualClock(Date.parse('2026-11-30T10:00:00Z'));
    return { clock, limiter: createKeyLimiter({ store: createMemoryStateStore({ clock }), clock }) };
  };

  it('holds the RPM limit and says when to retry', async () => {
    const { clock, limiter } = setup();
    const limited = key({ secret: 's', rpm: 2 });
    await limiter.admitRequest(limited);
    await limiter.admitRequest(limited);
    const error = await rejection(limiter.admitRequest(limited));
    expect(error).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    expect(error.retryAfterSeconds).toBe(60);
    clock.advance(60_000);
    await limiter.admitRequest(limited);
  });

  it('counts prompt tokens before and completion tokens after against TPM', async () => {
    const { limiter } = setup();
    const limited = key({ secret: 's', tpm: 1000 });
    const admission = await limiter.admitTokens(limited, {
      promptTokens: 600,
      maxCompletionTokens: 0,
      stream: false,
      totalMs: 1000,
    });
    await admission.finish({ promptTokens: 600, completionTokens: 300 });
    expect(
      (
        await rejection(
          limiter.admitTokens(limited, {
            promptTokens: 200,
            maxCompletionTokens: 0,
            stream: false,
            totalMs: 1000,
          }),
        )
      ).message,
    ).toContain('1000 tokens per minute');
  });

  it('stops a spent daily budget until midnight in its time zone', async () => {
    const { clock, limiter } = setup();
    const budgeted = key({ secret: 's', budget: { tokens: 100, period: 'day', timezone: 'UTC' } });
    await (
      await limiter.admitTokens(budgeted, {
        promptTokens: 60,
        maxCompletionTokens: 40,
        stream: false,
        totalMs: 1000,
      })
    ).finish({ promptTokens: 60, completionTokens: 40 });
    const error = await rejection(
      limiter.admitTokens(budgeted, {
        promptTokens: 1,
        maxCompletionTokens: 0,
        stream: false,
        totalMs: 1000,
      }),
    );
    expect(error.retryAfterSeconds).toBe(14 * 3600);
    clock.advance(14 * 3_600_000);
    await limiter.admitTokens(budgeted, {
      promptTokens: 1,
      maxCompletionTokens: 0,
      stream: false,
      totalMs: 1000,
    });
  });

  it('limits concurrent streams and frees the slot when a stream ends', async () => {
    const { limiter } = setup();
    const streamer = key({ secret: 's', max_streams: 1 });
    const first = await limiter.admitTokens(streamer, {
      promptTokens: 1,
      maxCompletionTokens: 0,
      stream: true,
      totalMs: 1000,
    });
    await rejection(
      limiter.admitTokens(streamer, { promptTokens: 1, maxCompletionTokens: 0, stream: true, totalMs: 1000 }),
    );
    await limiter.admitTokens(streamer, {
      promptTokens: 1,
      maxCompletionTokens: 0,
      stream: false,
      totalMs: 1000,
    });
    await first.finish({ promptTokens: 1, completionTokens: 1 });
    await limiter.admitTokens(streamer, {
      promptTokens: 1,
      maxCompletionTokens: 0,
      stream: true,
      totalMs: 1000,
    });
  });

  it('reserves prompt plus max_tokens, so concurrent requests cannot overshoot a budget', async () => {
    const { limiter } = setup();
    const budgeted = key({ secret: 's', budget: { tokens: 2000, period: 'day', timezone: 'UTC' } });
    const reservation = { promptTokens: 100, maxCompletionTokens: 1000, stream: false, totalMs: 1000 };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, () => limiter.admitTokens(budgeted, reservation)),
    );
    const admitted = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(admitted).toHaveLength(1);
    // the answer used 200 of its 1000: 800 go back, so 1,700 of 2,000 are free again
    await (admitted[0] as PromiseFulfilledResult<KeyAdmission>).value.finish({
      promptTokens: 100,
      completionTokens: 200,
    });
    await limiter.admitTokens(budgeted, { ...reservation, maxCompletionTokens: 1600 });
    await rejection(
      limiter.admitTokens(budgeted, { ...reservation, promptTokens: 1, maxCompletionTokens: 1 }),
    );
  });

  it('returns unused reserved tokens to the TPM bucket that holds them, and settles only once', async () => {
    const { clock, limiter } = setup();
    const limited = key({ secret: 's', tpm: 1000 });
    const admission = await limiter.admitTokens(limited, {
      promptTokens: 100,
      maxCompletionTokens: 800,
      stream: false,
      totalMs: 1000,
    });
    clock.advance(30_000);
    await admission.finish({ promptTokens: 100, completionTokens: 100 });
    await admission.finish({ promptTokens: 100, completionTokens: 0 });
    // 200 are booked 30 s ago: 800 fit now, and all 1000 once that bucket has left the window
    await (
      await limiter.admitTokens(limited, {
        promptTokens: 800,
        maxCompletionTokens: 0,
        stream: false,
        totalMs: 1,
      })
    ).finish({ promptTokens: 800, completionTokens: 0 });
    await rejection(
      limiter.admitTokens(limited, { promptTokens: 1, maxCompletionTokens: 0, stream: false, totalMs: 1 }),
    );
  });

  it('gives back the TPM reservation when the budget refuses', async () => {
    const { limiter } = setup();
    const both = key({ secret: 's', tpm: 1000, budget: { tokens: 500, period: 'day', timezone: 'UTC' } });
    await rejection(
      limiter.admitTokens(both, { promptTokens: 600, maxCompletionTokens: 0, stream: false, totalMs: 1 }),
    );
    await limiter.admitTokens(both, { promptTokens: 500, maxCompletionTokens: 0, stream: false, totalMs: 1 });
  });

  it('books classifier tokens without refusing, and refuses route checks once the budget is spent', async () => {
    const { limiter } = setup();
    const budgeted = key({ secret: 's', budget: { tokens: 100, period: 'day', timezone: 'UTC' } });
    await limiter.checkTokens(budgeted);
    await limiter.bookTokens(budgeted, 150);
    await rejection(limiter.checkTokens(budgeted));
  });

  it('books what the upstream reported past the reservation, so the next request sees it', async () => {
    const { limiter } = setup();
    const budgeted = key({ secret: 's', budget: { tokens: 20_000, period: 'day', timezone: 'UTC' } });
    const reservation = { promptTokens: 10, maxCompletionTokens: 100, stream: false, totalMs: 1 };
    // a video part the count did not see: the server reports 15,000 prompt tokens
    await (
      await limiter.admitTokens(budgeted, reservation)
    ).finish({ promptTokens: 15_000, completionTokens: 50 });
    const refused = await rejection(
      limiter.admitTokens(budgeted, { ...reservation, maxCompletionTokens: 5000 }),
    );
    expect(refused).toMatchObject({ code: 'INSUFFICIENT_QUOTA', status: 429 });
    expect(refused.message).toContain('has 4950 of its 20000 tokens per day left');
    expect(refused.message).toContain('up to 5010 tokens (10 prompt + 5000 completion');
    await limiter.admitTokens(budgeted, { ...reservation, maxCompletionTokens: 4940 });
  });

  it('names tokens per minute when a reservation is larger than what is left of it', async () => {
    const { limiter } = setup();
    const limited = key({ secret: 's', tpm: 5000 });
    const refused = await rejection(
      limiter.admitTokens(limited, {
        promptTokens: 10,
        maxCompletionTokens: 8000,
        stream: false,
        totalMs: 1,
      }),
    );
    expect(refused).toMatchObject({ code: 'TPM_EXCEEDED', status: 429 });
    expect(refused.message).toContain('5000 tokens per minute and has 5000 left');
  });

  it('books nothing for counts that are not finite non-negative numbers', async () => {
    const { limiter } = setup();
    const budgeted = key({ secret: 's', budget: { tokens: 100, period: 'day', timezone: 'UTC' } });
    const reservation = { promptTokens: 50, maxCompletionTokens: 50, stream: false, totalMs: 1 };
    await (
      await limiter.admitTokens(budgeted, reservation)
    ).finish({
      promptTokens: Number.NaN,
      completionTokens: -5,
    });
    await limiter.admitTokens(budgeted, { ...reservation, promptTokens: 50, maxCompletionTokens: 50 });
  });
});

describe('revealsInternal', () => {
  const admin = key({ secret: 's', admin: true });
  const member = key({ secret: 's', admin: false });
  it('shows internal detail to an admin key and in open mode, never on an open route', () => {
    expect(revealsInternal(admin, 'key')).toBe(true);
    expect(revealsInternal(admin, 'admin')).toBe(true);
    expect(revealsInternal(undefined, 'key')).toBe(true);
    expect(revealsInternal(member, 'key')).toBe(false);
    expect(revealsInternal(undefined, 'open')).toBe(false);
    expect(revealsInternal(admin, 'open')).toBe(false);
  });
});
