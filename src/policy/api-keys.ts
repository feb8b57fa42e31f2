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

/**
 * Whether errors may show a caller their internal detail (deployment hosts and names, upstream
 * messages): an admin key, or anyone in open mode (no keys configured: the caller is the operator);
 * never on an open route (health, ready), where nobody is identified.
 */
export function revealsInternal(key: ApiKeyConfig | undefined, access: 'open' | 'key' | 'admin'): boolean {
  return access !== 'open' && (key === undefined || key.admin);
}

/** What a request really spent, as settled when it ends. */
export interface SpentTokens {
  /** The upstream's reported prompt tokens, else autotier's count. */
  promptTokens: number;
  /** The upstream's reported completion tokens, else an estimate from the generated text. */
  completionTokens: number;
}

export interface KeyAdmission {
  /**
   * Call once when the request ends: frees the stream slot and settles the reservation on what was
   * spent. Reserved tokens not spent go back to TPM and the budget; tokens spent past the reservation
   * (a server that reports more than autotier counted) are booked on top, so the next request sees them.
   */
  finish(spent: SpentTokens): Promise<void>;
}

/** What a request reserves on its key's token limits before it is sent upstream: the most it can spend. */
export interface TokenReservation {
  /** Every prompt's tokens, or the window's bound for a prompt with parts no count sees. */
  promptTokens: number;
  /** The request's effective max_tokens (after the tier's cap) times every sequence it asks for. */
  maxCompletionTokens: number;
  stream: boolean;
  /** The tier's total_ms: a stream slot is freed after this even if its release is lost. */
  totalMs: number;
}

const MINUTE_MS = 60_000;

/** A token count as booked: a finite count at or above 0, else 0. */
const toCount = (tokens: number): number => (Number.isFinite(tokens) && tokens > 0 ? Math.ceil(tokens) : 0);
const BUDGET_TTL_MS = { day: 26 * 3_600_000, month: 32 * 86_400_000 } as const;

function toLimitError(what: string, decision: Pick<WindowDecision, 'retryAfterMs'>): RouterError {
  return new RouterError({
    code: 'RATE_LIMITED',
    message: `rate limit reached: ${what}`,
    retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)),
  });
}

/** What a refused reservation asked for, in the refusal's words. */
function toAskedText(asked: { tokens: number; reservation: TokenReservation | undefined }): string {
  const { reservation } = asked;
  if (reservation === undefined) return '';
  return (
    `this request may spend up to ${asked.tokens} tokens (${reservation.promptTokens} prompt + ` +
    `${reservation.maxCompletionTokens} completion: max_tokens for every prompt and choice); `
  );
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

  /**
   * Reserves `tokens` on TPM and then the budget; a refusal (TPM_EXCEEDED, INSUFFICIENT_QUOTA) names
   * the limit, what is left of it and what the request may spend, and returns what was already taken.
   */
  async function reserve(
    key: ApiKeyConfig,
    asked: { tokens: number; reservation?: TokenReservation },
  ): Promise<{ at: number; period?: string }> {
    const { tokens } = asked;
    const at = clock.now();
    const askedText = toAskedText({ tokens, reservation: asked.reservation });
    if (key.tpm !== undefined) {
      const decision = await store.consumeWindow({
        key: `key:${key.name}:tpm`,
        amount: tokens,
        limit: key.tpm,
        windowMs: MINUTE_MS,
        enforce: true,
      });
      if (!decision.allowed)
        throw new RouterError({
          code: 'TPM_EXCEEDED',
          message:
            `rate limit reached: ${askedText}key ${key.name} allows ${key.tpm} tokens per minute and ` +
            `has ${Math.max(0, key.tpm - decision.total)} left in this minute`,
          retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)),
        });
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
    const retryAfterMs = periods.msUntilNextPeriod({
      timezone: budget.timezone,
      kind: budget.period,
      now: clock.now(),
    });
    throw new RouterError({
      code: 'INSUFFICIENT_QUOTA',
      message:
        `token budget reached: ${askedText}key ${key.name} has ${Math.max(0, budget.tokens - decision.total)} ` +
        `of its ${budget.tokens} tokens per ${budget.period} left`,
      retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
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
      await reserve(key, { tokens: 0 });
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
      const held = await reserve(key, { tokens: reserved, reservation });
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
        async finish(spent) {
          if (finished) return;
          finished = true;
          if (holdsSlot) await store.releaseSlot(slot);
          const used = toCount(spent.promptTokens) + toCount(spent.completionTokens);
          await book(key, { tokens: used - reserved, at: held.at, period: held.period });
        },
      };
    },
  };
}
