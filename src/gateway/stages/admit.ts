import type { KeyLimiter } from '../../policy/api-keys.js';
import type { Stage } from '../stages.js';

/**
 * Counts the request against its key's requests per minute (a 429 with Retry-After over it), before
 * any classification can cost an LLM call; `checkTokens` also refuses a key with no tokens left in its
 * minute (the decision-only endpoint, which reserves nothing). Open mode has no limits.
 */
export function admitStage(limiter: KeyLimiter, options: { checkTokens: boolean }): Stage {
  return {
    name: 'admit',
    run(exchange) {
      const { key } = exchange;
      // open mode: nothing to wait for, so no promise
      if (key === undefined) return undefined;
      return options.checkTokens
        ? limiter.admitRequest(key).then(() => limiter.checkTokens(key))
        : limiter.admitRequest(key);
    },
  };
}
