import type { LoadedTable } from '../../config/load-routing-table.js';
import { checkBodyFields } from '../body-fields.js';
import type { RoutedEndpoint, StreamFlags } from '../routed-endpoint.js';
import { toRequestAttributes } from '../request-span-attributes.js';
import type { Stage } from '../stages.js';
import { UPSTREAM_PATHS } from '../upstream-call.js';

/** True when a body asks for a stream (`stream: true`), read before the body is checked. */
export function asksForStream(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
}

/**
 * Fixes the routing table the request keeps to its end, checks the body's top-level fields against
 * the table's allow-list and the endpoint's schema (a 400 naming the field), and keeps the prompt text
 * only when content logging is on.
 */
export function parseStage<T extends StreamFlags>(
  endpoint: RoutedEndpoint<T>,
  table: () => LoadedTable,
): Stage<T> {
  const path = UPSTREAM_PATHS[endpoint.kind];
  return {
    name: 'parse',
    run(exchange) {
      const loaded = table();
      exchange.loaded = loaded;
      exchange.stream = asksForStream(exchange.body);
      checkBodyFields(exchange.body, endpoint.kind, loaded.table.client_fields);
      const request = endpoint.parse(exchange.body);
      exchange.request = request;
      if (exchange.trace?.recording === true)
        exchange.trace.setAttributes(toRequestAttributes(path, request));
      if (loaded.table.log_content && endpoint.toPrompt !== undefined)
        exchange.prompt = endpoint.toPrompt(request);
    },
  };
}
