import { z } from 'zod';
import { TIERS } from '../shared/tier.js';
import { classifierRulesSchema } from './classifier-rule-schema.js';
import {
  apiKeySchema,
  keyLimitsSchema,
  deploymentSchema,
  embeddingsSchema,
  healthProbesSchema,
  retrySchema,
  tierSchema,
  type DeploymentConfig,
  type EmbeddingsConfig,
} from './table-part-schemas.js';

/** `disagreement: calibrated`: how much the cascade trusts the LLM's verdict. */
export const calibratedSchema = z
  .object({
    /**
     * Share of prompts the classifier LLM labels right; its errors count as one tier up or down. Used
     * when `confusion` is absent. @default 0.87 (the design's figure for Qwen3-8B)
     */
    llm_accuracy: z.number().gt(0.25).lt(1).default(0.87),
    /**
     * The LLM's confusion matrix instead: 4 rows (gold SIMPLE..EXPERT) of 4 shares (its verdict
     * SIMPLE..EXPERT), each row summing to 1, e.g. counted on recorded verdicts. @default absent
     */
    confusion: z
      .array(z.array(z.number().min(0).max(1)).length(4))
      .length(4)
      .refine(
        (rows) => rows.every((row) => Math.abs(row.reduce((sum, share) => sum + share, 0) - 1) < 0.01),
        {
          message: 'each row of the confusion matrix must sum to 1',
        },
      )
      .optional(),
    /**
     * Exponent a on the local probabilities in p_local(t)^a · C[v|t] (0 ignores them; below 1 trusts
     * them less, as they are overconfident on unseen sources). @default 0.75
     */
    local_weight: z.number().min(0).max(4).default(0.75),
    /** Extra cost of routing one tier below the gold tier; 0 picks the posterior median. @default 1 */
    under_penalty: z.number().min(0).max(20).default(1),
  })
  .strict();

/** `classifier.learn`: record what the LLM stage decided, for `npm run train -- --from-traffic`. */
export const learnSchema = z
  .object({
    /** Record each LLM-decided request's hashed features (never its text). @default false */
    enabled: z.boolean().default(false),
    /** `file`: JSONL at `path`; `redis`: a capped list at `key` (needs AUTOTIER_REDIS_URL). @default file */
    to: z.enum(['file', 'redis']).default('file'),
    /** JSONL file, relative to the table file; required for `to: file`. @default absent */
    path: z.string().min(1).optional(),
    /** Redis list key for `to: redis`. @default autotier:learn */
    key: z.string().min(1).default('autotier:learn'),
    /**
     * Most records kept: a file rotates to `<path>.1` when it reaches this many lines (so at most
     * twice this many on disk); a Redis list is trimmed to it. @default 100000
     */
    max_records: z.number().int().positive().max(10_000_000).default(100_000),
    /** Records waiting for the writer; past this, new ones are dropped (and counted). @default 1000 */
    buffer: z.number().int().positive().max(100_000).default(1000),
    /** How often buffered records are written, in ms. @default 1000 */
    flush_ms: z.number().int().positive().default(1000),
  })
  .strict();

export const classifierSchema = z
  .object({
    /** local = heuristics + learned model; cascade asks the LLM when unsure; llm always asks. */
    mode: z.enum(['local', 'cascade', 'llm']).default('cascade'),
    /** Deployment id of the classifier model (Qwen3-8B). Required for cascade and llm. */
    deployment: z.string().optional(),
    /**
     * Which requests `cascade` asks the LLM about: `value` when asking is expected to save at least
     * `min_value` (from the local probabilities and `calibrated`); `confidence` when the local tier's
     * probability is below `threshold`. @default value
     */
    gate: z.enum(['confidence', 'value']).default('value'),
    /**
     * `gate: value`: the smallest expected saving worth an LLM call, in tiers of misrouting cost (a
     * tier too high costs 1, too low 1 + `calibrated.under_penalty`). @default 0.46 (about 40% of
     * requests on unseen sources)
     */
    min_value: z.number().min(0).max(4).default(0.46),
    /**
     * The local stage counts as sure when its tier's probability is at least this: `gate: confidence`
     * asks the LLM below it, and a failed LLM call below it rounds the local tier up. @default 0.6
     */
    threshold: z.number().min(0).max(1).default(0.6),
    /** Hard deadline of the LLM call, in ms. @default 400 */
    deadline_ms: z.number().int().positive().default(400),
    /**
     * How the LLM's verdict and the local probabilities combine: `calibrated` takes the tier of least
     * expected cost under p(t | verdict) (see `calibrated`); `round_up`, `llm` and `local` settle a
     * one-tier disagreement by that rule. @default calibrated
     */
    disagreement: z.enum(['round_up', 'llm', 'local', 'calibrated']).default('calibrated'),
    /** The LLM's confusion, the local weight and the under penalty of `calibrated` and `gate: value`. */
    calibrated: calibratedSchema.default(calibratedSchema.parse({})),
    /** Recording LLM decisions for `npm run train -- --from-traffic`. @default off */
    learn: learnSchema.default(learnSchema.parse({})),
    max_tokens: z.number().int().positive().default(96),
    circuit_breaker: z
      .object({
        failures: z.number().int().positive().default(5),
        open_ms: z.number().int().positive().default(30_000),
      })
      .strict()
      .default({ failures: 5, open_ms: 30_000 }),
    cache: z
      .object({
        max_entries: z.number().int().nonnegative().default(10_000),
        ttl_ms: z.number().int().positive().default(600_000),
      })
      .strict()
      .default({ max_entries: 10_000, ttl_ms: 600_000 }),
    /** Path of the learned model file, relative to the table file; default: the bundled model. */
    model_file: z.string().optional(),
    /**
     * Operator rules: a pattern or keywords over part of the conversation, and the exact
     * or minimum tier a match implies for `auto` requests. At most 200. @default []
     */
    rules: classifierRulesSchema.default([]),
  })
  .strict();

export const balancerSchema = z
  .object({
    /** Bench time after a failure without Retry-After, in ms. @default 5000 */
    cooldown_ms: z.number().int().nonnegative().default(5000),
    /** Longest cooldown, whatever Retry-After says, in ms. @default 60000 */
    max_cooldown_ms: z.number().int().positive().default(60_000),
    retry: retrySchema.default(retrySchema.parse({})),
    /** Weight of the newest sample in latency EWMAs, 0..1. @default 0.3 */
    ewma_alpha: z.number().gt(0).max(1).default(0.3),
    health_probes: healthProbesSchema.default(healthProbesSchema.parse({})),
  })
  .strict();

export const sessionsSchema = z
  .object({
    /** A conversation's tier never drops below the highest it used within this many minutes. @default 30 */
    window_minutes: z.number().positive().default(30),
    /** `header`: the x-session-id header; `header_or_user`: that, or else the request's `user` field. */
    key: z.enum(['header', 'header_or_user']).default('header'),
    enabled: z.boolean().default(true),
  })
  .strict();

export const tokensSchema = z
  .object({
    /**
     * Fraction added to every prompt count, for what is not counted exactly: counts use each
     * deployment's own tokenizer and Qwen3's chat template, but a deployment may use another template
     * (Qwen2.5 adds a default system prompt of about 20 tokens) and its server renders tool schemas its
     * own way (vLLM writes absent fields as null). Measured without a margin (scripts/token-template-
     * overhead.ts, eval and dev prompts with and without tools): never below the real templated count,
     * worst 10 tokens above. @default 0.02
     */
    safety_margin: z.number().min(0).max(1).default(0.02),
    /** Tokens counted per image part. @default 1024 */
    image_tokens: z.number().int().nonnegative().default(1024),
  })
  .strict();

export const overridesSchema = z
  .object({
    /**
     * Whether clients may pick a model, a `tier:` alias or send x-autotier-min-tier; when false such a
     * request is refused with 403 OVERRIDE_NOT_ALLOWED (only `auto` is served). @default true
     */
    allow_client: z.boolean().default(true),
  })
  .strict();

const tiersSchema = z
  .object({
    SIMPLE: tierSchema,
    MODERATE: tierSchema,
    COMPLEX: tierSchema,
    EXPERT: tierSchema,
    VISION: tierSchema.optional(),
  })
  .strict();

/** Key path of a tier's config: `tiers.SIMPLE`, or `autocomplete`. */
function tierPath(name: string): string[] {
  return name === 'AUTOCOMPLETE' ? ['autocomplete'] : ['tiers', name];
}

export const routingTableSchema = z
  .object({
    version: z.literal(1).default(1),
    deployments: z.array(deploymentSchema).min(1),
    tiers: tiersSchema,
    classifier: classifierSchema.default(classifierSchema.parse({ mode: 'local' })),
    balancer: balancerSchema.default(balancerSchema.parse({})),
    sessions: sessionsSchema.default(sessionsSchema.parse({})),
    tokens: tokensSchema.default(tokensSchema.parse({})),
    overrides: overridesSchema.default(overridesSchema.parse({})),
    /** Legacy /v1/completions (IDE tab autocomplete): its own low-latency group, no classification. */
    autocomplete: tierSchema.optional(),
    /** POST /v1/embeddings: its own group of `kind: embedding` deployments, no classification. @default absent */
    embeddings: embeddingsSchema.optional(),
    /** Put prompt and completion text in the request log lines (off by default: logs carry no content). */
    log_content: z.boolean().default(false),
    /**
     * Top-level body fields clients may send beyond the accepted ones (OpenAI's and vLLM's sampling
     * extras, docs/body-fields.md), on every endpoint: for a field a newer SDK sends before autotier
     * knows it. A name here passes even if it is an operator's field (`priority`): the operator's call.
     * @default [] (any other field is a 400 naming it)
     */
    client_fields: z.array(z.string().min(1).max(128)).max(256).default([]),
    /** API keys; none = open mode (a warning at start). */
    api_keys: z.array(apiKeySchema).default([]),
    /** A YAML file with more `api_keys` entries, relative to the table. */
    api_keys_file: z.string().optional(),
    /** Concurrency caps of keys that set none of their own (see keyLimitsSchema). */
    key_limits: keyLimitsSchema.default(keyLimitsSchema.parse({})),
    /**
     * Say so to serve without API keys on purpose. A table without keys still starts in open mode
     * (with a warning), but a reload that would take a keyed service to open mode is refused unless
     * the new table sets this. @default false
     */
    open_mode: z.boolean().default(false),
    state: z
      .object({
        /** Rate limits while Redis is down: `open` lets requests through, `closed` refuses them (429). */
        rate_limits_when_down: z.enum(['open', 'closed']).default('open'),
      })
      .strict()
      .default({ rate_limits_when_down: 'open' }),
  })
  .strict()
  .superRefine((table, context) => {
    const issue = (path: (string | number)[], message: string): void =>
      context.addIssue({ code: 'custom', path, message });
    const ids = new Set<string>();
    const embeddingIds = new Set<string>();
    table.deployments.forEach((deployment, index) => {
      if (ids.has(deployment.id))
        issue(['deployments', index, 'id'], `duplicate deployment id "${deployment.id}"`);
      ids.add(deployment.id);
      if (deployment.kind === 'embedding') embeddingIds.add(deployment.id);
    });
    checkEmbeddingReferences(table, { ids, embeddingIds, issue });
    for (const name of [...TIERS, 'VISION', 'AUTOCOMPLETE'] as const) {
      const tier = name === 'AUTOCOMPLETE' ? table.autocomplete : table.tiers[name];
      if (tier === undefined) continue;
      const path = tierPath(name);
      const references: [string[], readonly string[]][] = [
        [['group'], tier.group],
        [['fallback'], tier.fallback],
        [['off_hours', 'group'], tier.off_hours?.group ?? []],
        [['off_hours', 'fallback'], tier.off_hours?.fallback ?? []],
      ];
      for (const [keys, list] of references) {
        list.forEach((id, index) => {
          if (!ids.has(id)) issue([...path, ...keys, index], `unknown deployment id "${id}"`);
          if (embeddingIds.has(id))
            issue(
              [...path, ...keys, index],
              `"${id}" is an embedding deployment: only the embeddings group may use it`,
            );
        });
      }
      if (tier.max_tokens.default > tier.max_tokens.cap)
        issue([...path, 'max_tokens', 'default'], 'default is larger than cap');
      if (tier.off_hours !== undefined && tier.availability === undefined)
        issue([...path, 'off_hours'], 'off_hours needs tier availability to say when the day ends');
    }
    const { mode, deployment } = table.classifier;
    if (mode !== 'local' && deployment === undefined)
      issue(['classifier', 'deployment'], `mode "${mode}" needs a classifier deployment id`);
    if (deployment !== undefined && !ids.has(deployment))
      issue(['classifier', 'deployment'], `unknown deployment id "${deployment}"`);
    if (deployment !== undefined && embeddingIds.has(deployment))
      issue(['classifier', 'deployment'], `"${deployment}" is an embedding deployment`);
    const { learn } = table.classifier;
    if (learn.enabled && learn.to === 'file' && learn.path === undefined)
      issue(['classifier', 'learn', 'path'], '`learn.to: file` needs a `path`');
    for (const problem of findDuplicateKeys(table.api_keys))
      issue(['api_keys', ...problem.path], problem.message);
    if (table.open_mode && (table.api_keys.length > 0 || table.api_keys_file !== undefined))
      issue(['open_mode'], 'open_mode: true and API keys contradict each other; remove one');
  });

/**
 * The embeddings group names known `kind: embedding` deployments only, and no embedding deployment is
 * probed with a chat request.
 */
function checkEmbeddingReferences(
  table: { deployments: readonly DeploymentConfig[]; embeddings?: EmbeddingsConfig | undefined },
  known: {
    ids: ReadonlySet<string>;
    embeddingIds: ReadonlySet<string>;
    issue: (path: (string | number)[], message: string) => void;
  },
): void {
  const { ids, embeddingIds, issue } = known;
  table.deployments.forEach((deployment, index) => {
    if (deployment.kind === 'embedding' && deployment.health_probe === 'chat')
      issue(
        ['deployments', index, 'health_probe'],
        'an embedding deployment cannot be probed with a chat request',
      );
  });
  const { embeddings } = table;
  if (embeddings === undefined) return;
  for (const keys of ['group', 'fallback'] as const)
    embeddings[keys].forEach((id, index) => {
      if (!ids.has(id)) issue(['embeddings', keys, index], `unknown deployment id "${id}"`);
      else if (!embeddingIds.has(id))
        issue(['embeddings', keys, index], `"${id}" is not an embedding deployment (kind: embedding)`);
    });
}

/** Keys with a name or a hash seen before in the list, as key paths (`3.sha256`) and messages. */
export function findDuplicateKeys(
  keys: readonly { name: string; sha256: string }[],
): { path: (string | number)[]; message: string }[] {
  const names = new Map<string, number>();
  const hashes = new Map<string, number>();
  const problems: { path: (string | number)[]; message: string }[] = [];
  keys.forEach((key, index) => {
    const sameName = names.get(key.name);
    if (sameName !== undefined)
      problems.push({
        path: [index, 'name'],
        message: `duplicate key name "${key.name}" (also entry ${sameName})`,
      });
    const sameHash = hashes.get(key.sha256);
    if (sameHash !== undefined)
      problems.push({
        path: [index, 'sha256'],
        message: `key "${key.name}" has the same sha256 as entry ${sameHash}: one secret must map to one key`,
      });
    names.set(key.name, names.get(key.name) ?? index);
    hashes.set(key.sha256, hashes.get(key.sha256) ?? index);
  });
  return problems;
}

export type RoutingTableInput = z.input<typeof routingTableSchema>;
export type RoutingTable = z.infer<typeof routingTableSchema>;
export type ClassifierConfig = z.infer<typeof classifierSchema>;
