import { createHash } from 'node:crypto';
import type { ApiKeyConfig } from '../config/routing-table-schema.js';
import type { Clock } from '../shared/clock.js';
import { RouterError } from '../shared/errors.js';
import type { StateStore, WindowDecision } from '../state/state-store.js';
import { createPeriodClock } from './quota-period.js';

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
  /** Call when the request ends: frees the stream slot and books the completion tokens. */
  finish(completionTokens: number): Promise<void>;
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
  /** Tokens per minute, the budget and the stream slot, once the prompt is counted. */
  admitTokens(
    key: ApiKeyConfig,
    request: { promptTokens: number; stream: boolean; totalMs: number },
  ): Promise<KeyAdmission>;
}

/** Per-key RPM, TPM, token budget and concurrent streams, on the shared store. */
export function createKeyLimiter(options: { store: StateStore; clock: Clock }): KeyLimiter {
  const { store } = options;
  const periods = createPeriodClock();
  const budgetPeriod = (key: ApiKeyConfig): string =>
    key.budget === undefined
      ? ''
      : periods.toPeriodId({
          timezone: key.budget.timezone,
          kind: key.budget.period,
          now: options.clock.now(),
        });
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
    async admitTokens(key, request) {
      if (key.tpm !== undefined) {
        const decision = await store.consumeWindow({
          key: `key:${key.name}:tpm`,
          amount: request.promptTokens,
          limit: key.tpm,
          windowMs: MINUTE_MS,
          enforce: true,
        });
        if (!decision.allowed)
          throw toLimitError(`${key.tpm} tokens per minute for key ${key.name}`, decision);
      }
      if (key.budget !== undefined) {
        const { budget } = key;
        const period = budgetPeriod(key);
        const decision = await store.consumePeriod({
          key: `key:${key.name}:budget`,
          period,
          amount: request.promptTokens,
          limit: budget.tokens,
          ttlMs: BUDGET_TTL_MS[budget.period],
          enforce: true,
        });
        if (!decision.allowed) {
          throw toLimitError(`token budget of ${budget.tokens} per ${budget.period} for key ${key.name}`, {
            retryAfterMs: periods.msUntilNextPeriod({
              timezone: budget.timezone,
              kind: budget.period,
              now: options.clock.now(),
            }),
          });
        }
      }
      const slot = `key:${key.name}:streams`;
      const holdsSlot = request.stream && key.max_streams !== undefined;
      if (
        holdsSlot &&
        !(await store.acquireSlot({ key: slot, limit: key.max_streams ?? 0, ttlMs: request.totalMs }))
      ) {
        throw toLimitError(`${key.max_streams} concurrent streams for key ${key.name}`, {
          retryAfterMs: 1000,
        });
      }
      return {
        async finish(completionTokens) {
          if (holdsSlot) await store.releaseSlot(slot);
          if (completionTokens <= 0) return;
          if (key.tpm !== undefined)
            await store.consumeWindow({
              key: `key:${key.name}:tpm`,
              amount: completionTokens,
              limit: key.tpm,
              windowMs: MINUTE_MS,
              enforce: false,
            });
          if (key.budget !== undefined) {
            await store.consumePeriod({
              key: `key:${key.name}:budget`,
              period: budgetPeriod(key),
              amount: completionTokens,
              limit: key.budget.tokens,
              ttlMs: BUDGET_TTL_MS[key.budget.period],
              enforce: false,
            });
          }
        },
      };
    },
  };
}
