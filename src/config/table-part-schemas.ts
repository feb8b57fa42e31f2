import { z } from 'zod';
import { TIERS } from '../shared/tier.js';
import { availabilitySchema } from './availability-schema.js';

/** Tiers a routing table can configure: the four complexity tiers and the vision tier. */
export const TABLE_TIERS = [...TIERS, 'VISION'] as const;
export type TableTier = (typeof TABLE_TIERS)[number];

/** True when a URL carries no user name or password (`http://user:pass@host` is refused). */
function hasNoCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username === '' && parsed.password === '';
  } catch {
    return true; // the url check reports it
  }
}

const identifier = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'letters, digits, . _ : - only');

export const timeoutsSchema = z
  .object({
    /** Time to open the connection and receive response headers, in ms. @default 2000 */
    connect_ms: z.number().int().positive().default(2000),
    /** Time from request to the first CONTENT token (content or tool_calls), in ms. @default 15000 */
    ttft_ms: z.number().int().positive().default(15_000),
    /** Longest gap between two stream chunks after the first token, in ms. @default 10000 */
    idle_ms: z.number().int().positive().default(10_000),
    /** Deadline for the whole request, all attempts and fallbacks included, in ms. @default 120000 */
    total_ms: z.number().int().positive().default(120_000),
  })
  .strict();

export const retrySchema = z
  .object({
    /** Upper bound on upstream attempts for one request, fallbacks included. @default 4 */
    max_attempts: z.number().int().min(1).max(20).default(4),
    /** First backoff step when every candidate failed, in ms (full jitter). @default 100 */
    backoff_base_ms: z.number().int().nonnegative().default(100),
    /** Largest backoff step, in ms. @default 2000 */
    backoff_max_ms: z.number().int().nonnegative().default(2000),
    /** Longest upstream Retry-After autotier waits for, in ms. @default 5000 */
    retry_after_cap_ms: z.number().int().nonnegative().default(5000),
  })
  .strict();

/**
 * Background health probes of benched deployments: a probe that succeeds after one that
 * failed puts the deployment back in service at once; one that fails keeps it benched until the next
 * probe (src/balance/decide-after-probe.ts).
 */
export const healthProbesSchema = z
  .object({
    /** Whether benched deployments are probed in the background. @default true */
    enabled: z.boolean().default(true),
    /**
     * Wait between two probes of a deployment benched after one failure, in ms; it doubles with each
     * further consecutive failure (failed probes included) up to `max_interval_ms`. Benched deployments
     * are looked at every quarter of this, so the first probe follows the bench within that. @default 1000
     */
    first_interval_ms: z.number().int().min(100).default(1000),
    /** Longest wait between two probes of a benched deployment, in ms. @default 10000 */
    max_interval_ms: z.number().int().min(100).default(10_000),
    /** Time a probe may take (to the end of its response body) before it counts as failed, in ms. @default 2000 */
    timeout_ms: z.number().int().positive().default(2000),
  })
  .strict()
  .refine((probes) => probes.first_interval_ms <= probes.max_interval_ms, {
    path: ['first_interval_ms'],
    message: 'first_interval_ms is larger than max_interval_ms',
  });

/**
 * Retrying the same deployment before a request drops to a weaker one: after a transient
 * failure (a 5xx, or a connection reset before response headers) or a 429 with a short Retry-After,
 * when no untried equal-rank member of the group is free. Each retry is an attempt of
 * `balancer.retry.max_attempts` and must start before the tier's `timeouts.total_ms`.
 */
export const retryInPlaceSchema = z
  .object({
    /**
     * Retries on the same deployment after a 5xx or a connection reset before headers, per deployment
     * and request; 0 disables. Connection refused is not retried in place (the server is down). @default 1
     */
    transient_retries: z.number().int().min(0).max(5).default(1),
    /** Largest wait before such a retry, in ms: the wait is uniform in [0, jitter_ms). @default 250 */
    jitter_ms: z.number().int().nonnegative().default(250),
    /**
     * Longest Retry-After of a 429 waited out on the same deployment (once per deployment and request),
     * in ms; 0 disables. A longer one, or one that ends after total_ms, drops to the next candidate. @default 5000
     */
    retry_after_cap_ms: z.number().int().nonnegative().default(5000),
  })
  .strict();

const clockTime = z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/, 'a time as HH:MM');

/** Upstream quotas of a deployment (e.g. a provider key pool); a deployment at its limit is skipped. */
export const deploymentLimitsSchema = z
  .object({
    /** Requests per minute (sliding window). */
    rpm: z.number().int().positive().optional(),
    /** Prompt + completion tokens per minute (sliding window; prompt tokens are reserved before dispatch). */
    tpm: z.number().int().positive().optional(),
    /** Requests per day, reset daily at `daily_reset` in `timezone`. */
    rpd: z.number().int().positive().optional(),
    daily_reset: clockTime.default('00:00'),
    timezone: z.string().default('UTC'),
  })
  .strict();

export const deploymentSchema = z
  .object({
    id: identifier,
    /** The served model name sent upstream and reported back to clients. */
    model: z.string().min(1),
    /**
     * `chat`: serves chat and legacy completions (tiers, autocomplete, classifier); `embedding`: serves
     * POST /v1/embeddings and may only appear in the `embeddings` group. @default chat
     */
    kind: z.enum(['chat', 'embedding']).default('chat'),
    /**
     * OpenAI-compatible base URL, ending in /v1. Credentials in the URL are refused: they would show
     * wherever the URL does (state, dashboard, logs); name an environment variable in `api_key_env`.
     */
    base_url: z
      .url({ protocol: /^https?$/ })
      .refine(
        hasNoCredentials,
        'credentials in base_url are not allowed: put the key in an environment variable named by api_key_env',
      ),
    /** Name of the environment variable holding the API key (optional: vLLM often runs without one). */
    api_key_env: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/)
      .optional(),
    context_window: z.number().int().positive(),
    /**
     * Tokenizer that counts prompts for the context-window check: `auto` = `qwen3` when the model name
     * contains "qwen" (any case), else `o200k_base`. @default auto
     */
    tokenizer: z.enum(['auto', 'qwen3', 'o200k_base', 'cl100k_base']).default('auto'),
    vision: z.boolean().default(false),
    weight: z.number().positive().default(1),
    /** In-flight requests this deployment accepts before it is skipped. @default 64 */
    max_concurrency: z.number().int().positive().default(64),
    /** Quantization label (e.g. bf16, fp8, 4bit); only used to warn about mixed groups. */
    quantization: z.string().optional(),
    /** Hardware label (cuda, mlx), informative. */
    runtime: z.string().optional(),
    /** Extra JSON merged into every request body sent to this deployment (e.g. chat_template_kwargs). */
    extra_body: z.record(z.string(), z.unknown()).default({}),
    /** Whether the server accepts response_format json_schema (vLLM does with guided decoding). */
    supports_json_schema: z.boolean().default(true),
    /**
     * Whether this server continues a final assistant message (`continue_final_message: true`,
     * `add_generation_prompt: false`: vLLM and SGLang do). When a stream breaks after its first token,
     * autotier sends the conversation plus the text already delivered to such a deployment and streams
     * the continuation into the same answer. @default false
     */
    continuation: z.boolean().default(false),
    /**
     * Whether this server serves the OpenAI Responses API itself (`POST {base_url}/responses`, as vLLM
     * does). A client's `POST /v1/responses` routed here is sent natively and its typed events are passed
     * through; to a deployment without it, autotier translates the request to chat completions and the
     * answer back. @default false
     */
    responses: z.boolean().default(false),
    /** Relative compute cost of one token here, for eval cost estimates. @default 1 */
    cost_weight: z.number().nonnegative().default(1),
    /**
     * What a million tokens cost here, in the fleet's own currency unit (docs/costs.md derives one
     * from a GPU's hourly cost and its measured throughput): every attempt and request routed here is
     * charged prompt and completion tokens at these prices. Absent: its cost is unknown, never 0.
     */
    price: z
      .object({
        input_per_million: z.number().nonnegative().finite(),
        output_per_million: z.number().nonnegative().finite(),
      })
      .strict()
      .optional(),
    /** When the deployment takes traffic (e.g. a CUDA server that sleeps at night); always when absent. */
    availability: availabilitySchema.optional(),
    limits: deploymentLimitsSchema.optional(),
    /**
     * How the background prober checks this deployment while it is benched (balancer.health_probes):
     * `health` = GET /health at the server root (vLLM), `models` = GET {base_url}/models (mlx_lm.server
     * and most OpenAI-compatible servers), `chat` = POST {base_url}/chat/completions with max_tokens 1
     * (the only kind that proves the model generates), `none` = no background probe (a user request
     * probes after the cooldown). A probe counts as healthy on a 2xx only. @default health
     */
    health_probe: z.enum(['health', 'models', 'chat', 'none']).default('health'),
  })
  .strict();

export const tierSchema = z
  .object({
    /** Deployment ids balanced within this tier. */
    group: z.array(identifier).min(1),
    strategy: z.enum(['weighted', 'least_busy', 'latency']).default('weighted'),
    /** Quality-ordered deployment ids tried after the group is exhausted. */
    fallback: z.array(identifier).default([]),
    max_tokens: z
      .object({
        /** Largest max_tokens a client may ask for; larger values are lowered to it. */
        cap: z.number().int().positive().default(8192),
        /** max_tokens used when the client sends none; also used for the context-length check. */
        default: z.number().int().positive().default(1024),
      })
      .strict()
      .default({ cap: 8192, default: 1024 }),
    timeouts: timeoutsSchema.default(timeoutsSchema.parse({})),
    /**
     * Retries on the same deployment before a weaker one is tried.
     * @default { transient_retries: 1, jitter_ms: 250, retry_after_cap_ms: 5000 }
     */
    retry_in_place: retryInPlaceSchema.default(retryInPlaceSchema.parse({})),
    /** Extra JSON merged into request bodies routed to this tier (after the deployment's). */
    extra_body: z.record(z.string(), z.unknown()).default({}),
    /** Text prepended as a system message to requests of this tier. */
    system_prompt_prefix: z.string().optional(),
    /** When the tier's own group serves; outside it `off_hours` takes over. */
    availability: availabilitySchema.optional(),
    /** Group and fallback chain used outside `availability`. */
    off_hours: z
      .object({ group: z.array(identifier).min(1), fallback: z.array(identifier).default([]) })
      .strict()
      .optional(),
  })
  .strict();

/**
 * `embeddings`: the group that serves POST /v1/embeddings, no classification. Its members
 * are deployments of `kind: embedding`; `model: auto` may use any of them, a model name only those
 * serving it. Mix models in one group only knowingly: vectors of different models are not comparable.
 */
export const embeddingsSchema = z
  .object({
    /** Embedding deployment ids balanced within the group. */
    group: z.array(identifier).min(1),
    strategy: z.enum(['weighted', 'least_busy', 'latency']).default('weighted'),
    /** Embedding deployment ids tried in order after the group is exhausted. @default [] */
    fallback: z.array(identifier).default([]),
    /**
     * An embeddings server sends its response headers with the vectors: `connect_ms` bounds the time to
     * them (the computation included), `ttft_ms` the time to the end of the body.
     * @default { connect_ms: 10000, ttft_ms: 30000, idle_ms: 10000, total_ms: 60000 }
     */
    timeouts: timeoutsSchema.default({
      connect_ms: 10_000,
      ttft_ms: 30_000,
      idle_ms: 10_000,
      total_ms: 60_000,
    }),
    /** Retries on the same deployment before the next one is tried (as for tiers). */
    retry_in_place: retryInPlaceSchema.default(retryInPlaceSchema.parse({})),
    /** Extra JSON merged into every embeddings request of the group (after the deployment's). @default {} */
    extra_body: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

export type DeploymentConfig = z.infer<typeof deploymentSchema>;
export type EmbeddingsConfig = z.infer<typeof embeddingsSchema>;
export type TierConfig = z.infer<typeof tierSchema>;
export type TimeoutsConfig = z.infer<typeof timeoutsSchema>;
export type RetryConfig = z.infer<typeof retrySchema>;
export type HealthProbesConfig = z.infer<typeof healthProbesSchema>;
export type RetryInPlaceConfig = z.infer<typeof retryInPlaceSchema>;

export const apiKeySchema = z
  .object({
    /** Shown in logs and metrics; the key itself never is. */
    name: identifier,
    /** SHA-256 of the key, hex (`printf %s "$KEY" | sha256sum`). */
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a lower-case hex SHA-256 digest'),
    /**
     * Tiers this key may use, VISION included (requests with images go there). Every way of naming a
     * target is checked against it; `auto` requests above them are capped. @default all
     */
    tiers: z.array(z.enum(TABLE_TIERS)).min(1).optional(),
    /** Served model names this key may ask for by name. @default all */
    models: z.array(z.string()).optional(),
    rpm: z.number().int().positive().optional(),
    tpm: z.number().int().positive().optional(),
    /** Token budget per day or month, reset at midnight in `timezone`. */
    budget: z
      .object({
        tokens: z.number().int().positive(),
        period: z.enum(['day', 'month']),
        timezone: z.string().default('UTC'),
      })
      .strict()
      .optional(),
    /** Concurrent streams of this key across instances. @default key_limits.max_streams */
    max_streams: z.number().int().positive().optional(),
    /**
     * Concurrent requests of this key (streamed or not) across instances, counted from admission to
     * the end of the answer. @default key_limits.max_concurrent_requests
     */
    max_concurrent_requests: z.number().int().positive().optional(),
    /**
     * Whether this key may pick models, tier aliases or a minimum tier; when false such a request is
     * refused with 403 OVERRIDE_NOT_ALLOWED. @default true
     */
    allow_overrides: z.boolean().default(true),
    /** May read /autotier/state, /metrics and the dashboard. @default false */
    admin: z.boolean().default(false),
  })
  .strict();

export type ApiKeyConfig = z.infer<typeof apiKeySchema>;

/**
 * Concurrency caps for every key that sets none of its own, so that one key cannot hold a fleet's
 * connections (each deployment takes at most `max_concurrency` calls, 64 by default). Not applied in
 * open mode, which has no tenants to keep apart.
 */
export const keyLimitsSchema = z
  .object({
    /** Concurrent requests per key. @default 32 */
    max_concurrent_requests: z.number().int().positive().default(32),
    /** Concurrent streams per key. @default 16 */
    max_streams: z.number().int().positive().default(16),
  })
  .strict();

export type KeyLimitsConfig = z.infer<typeof keyLimitsSchema>;
export type DeploymentLimits = z.infer<typeof deploymentLimitsSchema>;
