/**
 * The simulated fleet, routing table and request bodies of the benchmark. One simulator
 * process serves three backends on consecutive ports; one autotier process routes to all three:
 *
 * | backend     | simulator latency                              | reached through autotier as          |
 * |-------------|------------------------------------------------|--------------------------------------|
 * | `zero`      | none: answers at once                          | `tier:SIMPLE`, `auto` (every tier)   |
 * | `realistic` | 60 ms to first token, then the whole answer    | `realistic` (deployment id, pinned)  |
 * | `paced`     | 0 ms to first token, 50 tokens/s = 20 ms apart | `paced` (deployment id, pinned)      |
 *
 * Every tier's group is `zero`, so an `auto` request reaches the zero-latency backend whatever tier
 * the classifier picks; the other two backends are reached by naming their deployment id as the model.
 * The realistic backend has no jitter on purpose: random jitter would swamp the sub-millisecond
 * differences this bench subtracts.
 */
export const BENCH_MODEL = 'bench-model';

export const BACKENDS = [
  { id: 'zero', models: [BENCH_MODEL], latency: { ttftMs: 0, tokensPerSecond: 0 }, contextWindow: 131_072 },
  // No decode pacing here: the simulator waits ttft + n x interval for a JSON answer but only
  // ttft + (n - 1) x interval for the same answer streamed (which is what autotier asks upstream),
  // so paced JSON answers would flatter autotier by one token interval.
  { id: 'realistic', models: [BENCH_MODEL], latency: { ttftMs: 60 }, contextWindow: 131_072 },
  { id: 'paced', models: [BENCH_MODEL], latency: { ttftMs: 0, tokensPerSecond: 50 }, contextWindow: 131_072 },
] as const;

export type BackendId = (typeof BACKENDS)[number]['id'];

/** Content chunks of a paced stream (20 ms apart, so about 1.3 s per stream). */
export const STREAM_CHUNKS = 64;

const messages = [{ role: 'user', content: 'Say hello to the team in one short sentence.' }];

/** Bodies by backend; `model` is replaced per route (the served name directly, a `tier:` alias or `auto` via autotier). */
export const BODIES = {
  /** Non-streaming, 16 completion tokens (max_tokens is explicit so autotier's tier default cannot change the answer). */
  zero: { messages, max_tokens: 16 },
  /** Non-streaming, 16 tokens after 60 ms. */
  realistic: { messages, max_tokens: 16 },
  paced: { messages, max_tokens: STREAM_CHUNKS, stream: true },
} as const;

/** The `model` that reaches each backend through autotier with the bench routing table. */
export const ROUTER_MODEL: Record<BackendId, string> = {
  zero: 'tier:SIMPLE',
  realistic: 'realistic',
  paced: 'paced',
};

function toTier(group: BackendId) {
  return {
    group: [group],
    max_tokens: { cap: 8192, default: 1024 },
    timeouts: { connect_ms: 5000, ttft_ms: 30_000, idle_ms: 30_000, total_ms: 120_000 },
  };
}

/**
 * The routing table: every tier points at the simulator, no retries (like the Portkey config),
 * no classification cache (so every `auto` request runs the local classifier), and a deployment
 * concurrency limit high enough for 500 streams.
 */
export function toRoutingTable(options: { baseUrls: Record<BackendId, string>; modelFile: string }) {
  return {
    version: 1,
    deployments: BACKENDS.map((backend) => ({
      id: backend.id,
      model: BENCH_MODEL,
      base_url: options.baseUrls[backend.id],
      context_window: backend.contextWindow,
      max_concurrency: 4096,
      // the fleet runs Qwen3: count as it does (the abuse section's 1 MB bodies are decided by this count)
      tokenizer: 'qwen3',
    })),
    tiers: {
      SIMPLE: toTier('zero'),
      MODERATE: toTier('zero'),
      COMPLEX: toTier('zero'),
      EXPERT: toTier('zero'),
    },
    classifier: { mode: 'local', cache: { max_entries: 0 }, model_file: options.modelFile },
    balancer: { retry: { max_attempts: 1 } },
  };
}
