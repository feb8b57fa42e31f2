// Minimal local types for autocannon 9 (it ships none): only what bench/run-latency-job.ts uses.
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface AutocannonOptions {
    url: string;
    method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    pipelining?: number;
    /** Stop after this many requests (overrides duration). */
    amount?: number;
    /** Seconds. @default 10 */
    duration?: number;
    /** Seconds. @default 10 */
    timeout?: number;
    /** Requests per second across all connections; a per-second budget per connection, not a smooth schedule. */
    overallRate?: number;
  }

  interface AutocannonResult {
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
    /** Integer-millisecond HDR histogram summary. */
    latency: { p50: number; p90: number; p99: number; max: number; mean: number };
  }

  interface Instance extends EventEmitter, PromiseLike<AutocannonResult> {
    /** `responseTime` is fractional milliseconds from request write to last body byte. */
    on(
      event: 'response',
      listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void,
    ): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
    stop(): void;
  }

  function autocannon(options: AutocannonOptions): Instance;
  export default autocannon;
}
