import type { ApiKeyConfig } from '../../config/table-part-schemas.js';
import { revealsInternal } from '../../policy/api-keys.js';
import { RouterError } from '../../shared/errors.js';
import type { Exchange } from '../exchange.js';
import type { Stage } from '../stages.js';

/**
 * The caller's key, from headers only (the edge runs this before it reads a body, so no key + a bad
 * body is a 401): none on an open route; a 401 for a missing or unknown key when keys are configured;
 * a 403 for a key that is not an admin key on an admin route. Sets whether errors may show the caller
 * internal detail (revealsInternal: the one rule for it).
 */
export function authenticateStage(
  authenticate: (credentials: Exchange['credentials']) => ApiKeyConfig | undefined,
): Stage {
  return {
    name: 'authenticate',
    run(exchange) {
      const key = exchange.access === 'open' ? undefined : authenticate(exchange.credentials);
      exchange.key = key;
      exchange.revealInternal = revealsInternal(key, exchange.access);
      // undefined in open mode: everything is open
      if (exchange.access === 'admin' && key !== undefined && !key.admin)
        throw new RouterError({ code: 'FORBIDDEN', message: `key ${key.name} is not an admin key` });
    },
  };
}
