import type { ApiKeyConfig } from '../../config/table-part-schemas.js';
import type { KeyAdmission, KeyLimiter } from '../../policy/api-keys.js';
import { acquireRequestSlot } from '../../policy/key-concurrency.js';
import type { RouteDecision } from '../../routing/decide-route.js';
import type { StateStore } from '../../state/state-store.js';
import { toSpendBound } from '../spend-bound.js';
import { need, type Exchange } from '../exchange.js';
import type { RoutedEndpoint, StreamFlags } from '../routed-endpoint.js';
import type { Stage } from '../stages.js';

/** A decided request, as a key's limits see it: the sequences it may generate, and whether it streams. */
interface Admitted {
  decision: RouteDecision;
  stream: boolean;
  sequences: number;
}

/**
 * Takes one of the key's concurrent-request slots, then admits its tokens (admitDecision); `finish`
 * frees both.
 */
async function admitKey(
  services: { store: StateStore; limiter: KeyLimiter },
  key: ApiKeyConfig,
  admitted: Admitted,
): Promise<KeyAdmission> {
  const release = await acquireRequestSlot(services.store, {
    key,
    ttlMs: admitted.decision.plan.timeouts.total_ms,
  });
  const tokens = await admitDecision(services.limiter, key, admitted).catch(async (error: unknown) => {
    await release();
    throw error;
  });
  return {
    async finish(spent) {
      await release();
      await tokens.finish(spent);
    },
  };
}

/** Books the classifier call, then reserves the most the request can spend on the key's limits. */
async function admitDecision(
  limiter: KeyLimiter,
  key: ApiKeyConfig,
  admitted: Admitted,
): Promise<KeyAdmission> {
  const { decision } = admitted;
  await limiter.bookTokens(key, decision.classification?.llmTokens ?? 0);
  const bound = toSpendBound(decision, admitted.sequences);
  return limiter.admitTokens(key, {
    promptTokens: bound.promptTokens,
    maxCompletionTokens: bound.completionTokens,
    stream: admitted.stream,
    totalMs: decision.plan.timeouts.total_ms,
  });
}

/**
 * Reserves what the plan may spend on the key's limits: one of its concurrent-request slots (leased
 * for the tier's total timeout) and the most its tokens can come to (prompt + max_tokens for every
 * sequence), so concurrent requests never overshoot a limit; settle frees both and charges what was
 * spent. Open mode reserves nothing.
 */
export function reserveStage<T extends StreamFlags>(
  endpoint: RoutedEndpoint<T>,
  services: { store: StateStore; limiter: KeyLimiter },
): Stage<T> {
  const reserveFor = async (exchange: Exchange<T>, key: ApiKeyConfig): Promise<void> => {
    exchange.admission = await admitKey(services, key, {
      decision: need(exchange.decision, 'decision', 'reserve'),
      stream: exchange.stream,
      sequences: endpoint.sequences(need(exchange.request, 'request', 'reserve')),
    });
  };
  return {
    name: 'reserve',
    run(exchange) {
      const { key } = exchange;
      // open mode: nothing to reserve, so no promise
      if (key === undefined) return undefined;
      return reserveFor(exchange, key);
    },
  };
}
