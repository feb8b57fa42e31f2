import type { ExecuteResult } from '../../src/balance/balancer.js';
import type { LoadedTable } from '../../src/config/load-routing-table.js';
import { apiKeySchema, tierSchema, type ApiKeyConfig } from '../../src/config/table-part-schemas.js';
import { createExchange, type Exchange, type ExchangeStart } from '../../src/gateway/exchange.js';
import type { KeyAdmission, KeyLimiter, SpentTokens, TokenReservation } from '../../src/policy/api-keys.js';
import { toUnclassifiedDecision, type RouteDecision } from '../../src/routing/decide-route.js';
import { createCancelController } from '../../src/shared/cancel-signal.js';
import type { ChatChunk } from '../../src/upstream/chat-chunk.js';
import type { UpstreamEvent } from '../../src/upstream/upstream.js';
import { attempt, deployment, plan } from './balance-fixtures.js';
import { parseTableInput } from './table-input.js';

/** Epoch ms at which every test exchange arrives. */
export const RECEIVED_AT = 1_000_000;

/** A new exchange as the edge creates it: POST /v1/chat/completions, no headers, a fresh signal. */
export function testExchange<T = unknown>(start: Partial<ExchangeStart> = {}): Exchange<T> {
  return createExchange({
    requestId: 'request-1',
    clientRequestId: undefined,
    signal: createCancelController().signal,
    receivedAt: RECEIVED_AT,
    http: { method: 'POST', path: '/v1/chat/completions' },
    hints: {},
    credentials: {},
    trace: undefined,
    ...start,
  }) as Exchange<T>;
}

/** A table of one deployment `a` (sim-model, 32768 tokens) serving every tier, with `extra` on top. */
export function testTable(extra: Record<string, unknown> = {}): LoadedTable {
  const tier = { group: ['a'] };
  return parseTableInput({
    deployments: [{ id: 'a', model: 'sim-model', base_url: 'http://a.invalid/v1', context_window: 32_768 }],
    tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
    ...extra,
  });
}

/** A key named `alice` with `extra` (admin, limits) on top. */
export function testKey(extra: Record<string, unknown> = {}): ApiKeyConfig {
  return apiKeySchema.parse({ name: 'alice', sha256: '0'.repeat(64), ...extra });
}

/** A SIMPLE decision on deployment `a`: 10 prompt tokens, max_tokens 100, total timeout 4000 ms. */
export function testDecision(overrides: Partial<RouteDecision> = {}): RouteDecision {
  return {
    ...toUnclassifiedDecision({
      cause: 'override',
      promptTokens: 10,
      promptTokensEstimated: false,
      plan: plan([deployment('a')]),
      tierConfig: tierSchema.parse({ group: ['a'] }),
      maxTokens: 100,
      rules: [],
    }),
    ...overrides,
  };
}

function toEvent(chunk: ChatChunk): UpstreamEvent {
  return { data: JSON.stringify(chunk), chunk, firstContent: false };
}

/**
 * A committed answer from deployment `a` after one called attempt: `head` before the commit, `rest`
 * in arrival batches after it. Upstream wait 40 ms, first token 50 ms after RECEIVED_AT.
 */
export function testResult(head: ChatChunk[], rest: ChatChunk[][] = []): ExecuteResult {
  return {
    deployment: deployment('a'),
    attempts: [attempt('a', 'OK')],
    fallbacks: 0,
    upstreamMs: 40,
    ttftMs: 30,
    firstTokenAt: RECEIVED_AT + 50,
    head: head.map(toEvent),
    continuations: [],
    rest: (async function* () {
      await Promise.resolve();
      for (const batch of rest) yield batch.map(toEvent);
    })(),
    cancel: () => undefined,
  };
}

/** A key limiter that admits everything and records what it was asked, in order. */
export interface RecordingLimiter extends KeyLimiter {
  /** `admitRequest`, `checkTokens`, `bookTokens:<n>`, `admitTokens` with the key's name. */
  calls: string[];
  reservations: TokenReservation[];
  /** What each admission's finish was charged. */
  finished: SpentTokens[];
}

export function createRecordingLimiter(refuse: { admitTokens?: Error } = {}): RecordingLimiter {
  const limiter: RecordingLimiter = {
    calls: [],
    reservations: [],
    finished: [],
    admitRequest(key) {
      limiter.calls.push(`admitRequest:${key.name}`);
      return Promise.resolve();
    },
    checkTokens(key) {
      limiter.calls.push(`checkTokens:${key.name}`);
      return Promise.resolve();
    },
    bookTokens(key, tokens) {
      limiter.calls.push(`bookTokens:${key.name}:${tokens}`);
      return Promise.resolve();
    },
    admitTokens(key, reservation): Promise<KeyAdmission> {
      limiter.calls.push(`admitTokens:${key.name}`);
      limiter.reservations.push(reservation);
      if (refuse.admitTokens !== undefined) return Promise.reject(refuse.admitTokens);
      return Promise.resolve({
        finish(spent) {
          limiter.finished.push(spent);
          return Promise.resolve();
        },
      });
    },
  };
  return limiter;
}
