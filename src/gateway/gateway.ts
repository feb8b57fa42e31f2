/**
 * An answer to write. `stallMs`: how long the client may take none of it before it is cut and the
 * request stopped, ms (a routed answer's tier idle_ms). @default 10000
 */
export type GatewayResponse =
  | { kind: 'json'; status: number; headers: Record<string, string>; body: unknown; stallMs?: number }
  | { kind: 'stream'; headers: Record<string, string>; events: AsyncIterable<string>; stallMs?: number };
