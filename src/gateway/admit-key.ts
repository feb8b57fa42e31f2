import type { ApiKeyConfig } from '../config/table-part-schemas.js';
import type { KeyAdmission, KeyLimiter } from '../policy/api-keys.js';
import { acquireRequestSlot } from '../policy/key-concurrency.js';
import type { RouteDecision } from '../routing/decide-route.js';
import type { StateStore } from '../state/state-store.js';
import { toSpendBound } from './spend-bound.js';

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
export async function admitKey(
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
