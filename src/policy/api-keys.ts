import { createHash } from 'node:crypto';
import type { ApiKeyConfig } from '../config/table-part-schemas.js';
import type { Clock } from '../shared/clock.js';
import { RouterError } from '../shared/errors.js';
import type { StateStore, WindowDecision } from '../state/state-store.js';
import { createPeriodClock } from '../shared/period-clock.js';

export type KeyIndex = ReadonlyMap<string, ApiKeyConfig>;

export function toKeyIndex(keys: readonly ApiKeyConfig[]): KeyIndex {
  return new Map(keys.map((key) => [key.sha256, key]));
}

export function hashKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/**
 * The key of a request from `Authorization: Bearer <key>` (or `x-api-key`). Undefined in open mode
 * (no keys configured); 401 when keys are configured and the key is missing or unknown.
 */
export function authenticate(
  index: KeyIndex,
  header: { authorization?: string | undefined; apiKey?: string | undefined },
): ApiKeyConfig | undefined {
  if (index.size === 0) return undefined;
  const bearer = /^Bearer\s+(.+)$/i.exec(header.authorization ?? '')?.[1]?.trim() ?? header.apiKey?.trim();
  if (bearer === undefined || bearer === '') {
    throw new RouterError({
      code: 'UNAUTHORIZED',
      message: 'missing API key: send Authorization: Bearer <key>',
    });
  }
  const key = index.get(hashKey(bearer));
  if (key === undefined) throw new RouterError({ code: 'UNAUTHORIZED', message: 'unknown API key' });
  return key;
}

export interface KeyAdmission {
  /**
   * Call once when the request ends: frees the stream slot and settles the reservation with the
   * completion tokens really generated (unused reserved tokens go back to TPM and the budget).
   */
  finish(completionTokens: number): Promise<void>;
}

/** What a request reserves on its key's token limits before it is sent upstream. */
export interface TokenReservation {
  promptTokens: number;
  /** The request's effective max_tokens (after the tier's cap) times its `n`. */
  maxCompletionTokens: number;
  stream: boolean;
  /** The tier's total_ms: a stream slot is freed after this even if its release is lost. */
  totalMs: number;
}

const MINUTE_MS = 60_000;
const BUDGET_TTL_MS = { day: 26 * 3_600_000, month: 32 * 86_400_000 } as const;

function toLimitError(what: string, decision: Pick<WindowDecision, 'retryAfterMs'>): RouterError {
  return new RouterError({
    code: 'RATE_LIMITED',
    message: `rate limit reached: ${what}`,
    retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)),
  });
}

export interface KeyLimiter {
  /** Requests per minute, checked before any classification work. */
  admitRequest(key: ApiKeyConfig): Promise<void>;
  /**
   * Tokens per minute and the budget still have room (POST /v1/route, which sends nothing upstream
   * but may call the classifier model).
   */
  checkTokens(key: ApiKeyConfig): Promise<void>;
  /** Books tokens already spent on the key's behalf (classifier LLM calls), never refused. */
  bookTokens(key: ApiKeyConfig, tokens: number): Promise<void>;
  /**
   * Reserves prompt tokens plus the largest completion on TPM and the budget, and takes a stream
   * slot, so concurrent requests cannot overshoot a limit; `finish` settles the reservation.
   */
  admitTokens(key: ApiKeyConfig, reservation: TokenReservation): Promise<KeyAdmission>;
}

/** Per-key RPM, TPM, token budget and concurrent streams, on the shared store. */
export function createKeyLimiter(options: { store: StateStore; clock: Clock }): KeyLimiter {
  const { store, clock } = options;
  const periods = createPeriodClock();
  const toPeriod = (budget: NonNullable<ApiKeyConfig['budget']>): string =>
    periods.toPeriodId({ timezone: budget.timezone, kind: budget.period, now: clock.now() });

  /** Adds tokens to TPM and the budget (negative: returns them), at a reservation's time and period. */
  async function book(
    key: ApiKeyConfig,
    booking: { tokens: number; at: number; period: string | undefined },
  ): Promise<void> {
    if (booking.tokens === 0) return;
    if (key.tpm !== undefined)
      await store.consumeWindow({
        key: `key:${key.name}:tpm`,
        amount: booking.tokens,
        limit: key.tpm,
        windowMs: MINUTE_MS,
        enforce: false,
        bookAt: booking.at,
      });
    if (key.budget !== undefined && booking.period !== undefined)
      await store.consumePeriod({
        key: `key:${key.name}:budget`,
        period: booking.period,
        amount: booking.tokens,
        limit: key.budget.tokens,
        ttlMs: BUDGET_TTL_MS[key.budget.period],
        enforce: false,
      });
  }

  /** Reserves `tokens` on TPM and then the budget; a refusal returns what was already taken. */
  async function reserve(key: ApiKeyConfig, tokens: number): Promise<{ at: number; period?: string }> {
    const at = clock.now();
    if (key.tpm !== undefined) {
      const decision = await store.consumeWindow({
        key: `key:${key.name}:tpm`,
        amount: tokens,
        limit: key.tpm,
        windowMs: MINUTE_MS,
        enforce: true,
      });
      if (!decision.allowed) throw toLimitError(`${key.tpm} tokens per minute for key ${key.name}`, decision);
    }
    if (key.budget === undefined) return { at };
    const { budget } = key;
    const period = toPeriod(budget);
    const decision = await store.consumePeriod({
      key: `key:${key.name}:budget`,
      period,
      amount: tokens,
      limit: budget.tokens,
      ttlMs: BUDGET_TTL_MS[budget.period],
      enforce: true,
    });
    if (decision.allowed) return { at, period };
    if (key.tpm !== undefined) await book({ ...key, budget: undefined }, { tokens: -tokens, at, period });
    throw toLimitError(`token budget of ${budget.tokens} per ${budget.period} for key ${key.name}`, {
      retryAfterMs: periods.msUntilNextPeriod({
        timezone: budget.timezone,
        kind: budget.period,
        now: clock.now(),
      }),
    });
  }

  return {
    async admitRequest(key) {
      if (key.rpm === undefined) return;
      const decision = await store.consumeWindow({
        key: `key:${key.name}:rpm`,
        amount: 1,
        limit: key.rpm,
        windowMs: MINUTE_MS,
        enforce: true,
      });
      if (!decision.allowed)
        throw toLimitError(`${key.rpm} requests per minute for key ${key.name}`, decision);
    },
    async checkTokens(key) {
      await reserve(key, 0);
    },
    async bookTokens(key, tokens) {
      if (tokens <= 0) return;
      await book(key, {
        tokens,
        at: clock.now(),
        period: key.budget === undefined ? undefined : toPeriod(key.budget),
      });
    },
    async admitTokens(key, reservation) {
      const reserved = reservation.promptTokens + reservation.maxCompletionTokens;
      const held = await reserve(key, reserved);
      const slot = `key:${key.name}:streams`;
      const holdsSlot = reservation.stream && key.max_streams !== undefined;
      if (
        holdsSlot &&
        !(await store.acquireSlot({ key: slot, limit: key.max_streams ?? 0, ttlMs: reservation.totalMs }))
      ) {
        await book(key, { tokens: -reserved, at: held.at, period: held.period });
        throw toLimitError(`${key.max_streams} concurrent streams for key ${key.name}`, {
          retryAfterMs: 1000,
        });
      }
      let finished = false;
      return {
        async finish(completionTokens) {
          if (finished) return;
          finished = true;
          if (holdsSlot) await store.releaseSlot(slot);
          const unused = reservation.maxCompletionTokens - Math.max(0, completionTokens);
          await book(key, { tokens: -unused, at: held.at, period: held.period });
        },
      };
    },
  };
}
