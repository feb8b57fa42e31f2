import { need } from '../exchange.js';
import type { GatewayParts, RoutedEndpoint, StreamFlags } from '../routed-endpoint.js';
import type { Stage } from '../stages.js';

/**
 * The prompt's count and, for `auto`, its complexity (heuristics, the learned model, and the LLM only
 * when they are unsure), under the table's classifier rules; undefined for an endpoint that is not
 * classified (its plan decides alone).
 */
export function classifyStage<T extends StreamFlags>(
  endpoint: RoutedEndpoint<T>,
  parts: GatewayParts,
): Stage<T> | undefined {
  const { classify } = endpoint;
  if (classify === undefined) return undefined;
  return {
    name: 'classify',
    async run(exchange) {
      exchange.classified = await classify(need(exchange.request, 'request', 'classify'), exchange, parts);
    },
  };
}
