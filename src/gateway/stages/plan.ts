import { need } from '../exchange.js';
import type { GatewayParts, RoutedEndpoint, StreamFlags } from '../routed-endpoint.js';
import type { Stage } from '../stages.js';

/**
 * The decision: the tier after the client's floor, the session's ladder and the key's cap, and its
 * deployments and fallback chain as the tier policy leaves them (context window, vision, hours,
 * cooldowns), with the max_tokens and timeouts in force.
 */
export function planStage<T extends StreamFlags>(endpoint: RoutedEndpoint<T>, parts: GatewayParts): Stage<T> {
  return {
    name: 'plan',
    async run(exchange) {
      exchange.decision = await endpoint.plan(need(exchange.request, 'request', 'plan'), exchange, parts);
    },
  };
}
