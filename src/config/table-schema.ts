import { z } from 'zod';
import { TIERS } from '../shared/tier.js';
import { deploymentSchema, retrySchema, tierSchema } from './routing-table-schema.js';

export const classifierSchema = z
  .object({
    /** local = heuristics + learned model; cascade asks the LLM when unsure; llm always asks. */
    mode: z.enum(['local', 'cascade', 'llm']).default('cascade'),
    /** Deployment id of the classifier model (Qwen3-8B). Required for cascade and llm. */
    deployment: z.string().optional(),
    /** The learned model decides alone when its top probability is at least this. @default 0.6 */
    threshold: z.number().min(0).max(1).default(0.6),
    /** Hard deadline of the LLM call, in ms. @default 400 */
    deadline_ms: z.number().int().positive().default(400),
    /** What to do when the LLM and the learned model disagree by one tier. @default round_up */
    disagreement: z.enum(['round_up', 'llm', 'local']).default('round_up'),
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
    /** Fraction added to the tiktoken count, since Qwen's tokenizer differs. @default 0.1 */
    safety_margin: z.number().min(0).max(1).default(0.1),
    /** Tokens counted per image part. @default 1024 */
    image_tokens: z.number().int().nonnegative().default(1024),
  })
  .strict();

export const overridesSchema = z
  .object({
    /** Whether clients may pick a model, a `tier:` alias or send x-autotier-min-tier. @default true */
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
  })
  .strict()
  .superRefine((table, context) => {
    const ids = new Set<string>();
    table.deployments.forEach((deployment, index) => {
      if (ids.has(deployment.id)) {
        context.addIssue({
          code: 'custom',
          path: ['deployments', index, 'id'],
          message: `duplicate deployment id "${deployment.id}"`,
        });
      }
      ids.add(deployment.id);
    });
    for (const tierName of [...TIERS, 'VISION'] as const) {
      const tier = table.tiers[tierName];
      if (tier === undefined) continue;
      for (const key of ['group', 'fallback'] as const) {
        tier[key].forEach((id, index) => {
          if (!ids.has(id)) {
            context.addIssue({
              code: 'custom',
              path: ['tiers', tierName, key, index],
              message: `unknown deployment id "${id}"`,
            });
          }
        });
      }
      if (tier.max_tokens.default > tier.max_tokens.cap) {
        context.addIssue({
          code: 'custom',
          path: ['tiers', tierName, 'max_tokens', 'default'],
          message: 'default is larger than cap',
        });
      }
    }
    const { mode, deployment } = table.classifier;
    if (mode !== 'local' && deployment === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['classifier', 'deployment'],
        message: `mode "${mode}" needs a classifier deployment id`,
      });
    }
    if (deployment !== undefined && !ids.has(deployment)) {
      context.addIssue({
        code: 'custom',
        path: ['classifier', 'deployment'],
        message: `unknown deployment id "${deployment}"`,
      });
    }
  });

export type RoutingTableInput = z.input<typeof routingTableSchema>;
export type RoutingTable = z.infer<typeof routingTableSchema>;
