import type { SimBackendOptions } from './types.js';

/** A backend of the demo fleet; ports are assigned when the fleet starts. */
export type DemoBackendOptions = Omit<SimBackendOptions, 'port'>;

/**
 * The default fleet of `npm run sim` and the demo: Qwen3 models on Apple-silicon (MLX) and CUDA hosts.
 * Latencies are rough single-stream figures: time to first token in milliseconds, decode speed in
 * tokens per second; context windows in tokens, as in routing-tables/default.yaml. The CUDA ones
 * continue an assistant prefill like vLLM; the MLX ones refuse it.
 */
export const DEMO_FLEET: readonly DemoBackendOptions[] = Object.freeze([
  {
    id: 'qwen3-8b-mlx',
    continuation: false, // mlx_lm.server has no assistant prefill
    responses: false, // nor /v1/responses: autotier translates to chat completions
    models: ['Qwen/Qwen3-8B'],
    latency: { ttftMs: 60, tokensPerSecond: 120, jitterMs: 20 },
    contextWindow: 32768,
    answerTokens: 60,
  },
  {
    id: 'qwen3-14b-mlx',
    continuation: false, // mlx_lm.server has no assistant prefill
    responses: false, // nor /v1/responses: autotier translates to chat completions
    models: ['Qwen/Qwen3-14B'],
    latency: { ttftMs: 110, tokensPerSecond: 70, jitterMs: 30 },
    contextWindow: 32768,
    answerTokens: 60,
  },
  {
    id: 'qwen3-30b-a3b-cuda',
    models: ['Qwen/Qwen3-30B-A3B'],
    latency: { ttftMs: 90, tokensPerSecond: 150, jitterMs: 30 },
    contextWindow: 65536,
    answerTokens: 80,
  },
  {
    id: 'qwen3-30b-a3b-mlx',
    continuation: false, // mlx_lm.server has no assistant prefill
    responses: false, // nor /v1/responses: autotier translates to chat completions
    models: ['Qwen/Qwen3-30B-A3B'],
    latency: { ttftMs: 150, tokensPerSecond: 80, jitterMs: 40 },
    contextWindow: 32768,
    answerTokens: 60,
  },
  {
    id: 'qwen3-235b-a22b-cuda',
    models: ['Qwen/Qwen3-235B-A22B'],
    latency: { ttftMs: 400, tokensPerSecond: 25, jitterMs: 100 },
    contextWindow: 131072,
    answerTokens: 120,
  },
  {
    id: 'qwen3-vl-8b',
    models: ['Qwen/Qwen3-VL-8B-Instruct'],
    latency: { ttftMs: 120, tokensPerSecond: 90, jitterMs: 30 },
    contextWindow: 32768,
    answerTokens: 60,
  },
  {
    // an embedding model on vLLM (--task embed): 1024-dimension vectors, POST /v1/embeddings only
    id: 'bge-m3-cuda',
    models: ['BAAI/bge-m3'],
    latency: { ttftMs: 15, jitterMs: 5 },
    contextWindow: 8192,
    embedding: { dimensions: 1024, matryoshka: false },
  },
]);
