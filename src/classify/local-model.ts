import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { decodeRows, encodeRows } from './model-codec.js';
import { NUMERIC_FEATURES, toFeatureLayout, type FeatureLayout, type FeatureSpec } from './model-features.js';
import { BLEND_INPUTS, type TierBlend } from './tier-blend.js';

export const LOCAL_MODEL_FORMAT = 'autotier-local-model/1';

/** How probabilities become a tier; tuned by cross-validation and stored with the model. */
export interface DecisionPolicy {
  /**
   * Extra cost of routing one tier below the gold tier, relative to the cost 1 of routing one tier
   * above it; both grow linearly with the distance (see `chooseTier`). 0 picks the median tier; higher
   * values trade exact accuracy for less under-routing.
   */
  underPenalty: number;
}

/** Multinomial logistic regression over hashed n-grams, heuristic signals and a few numbers. */
export interface LocalModel {
  spec: FeatureSpec;
  layout: FeatureLayout;
  /** layout.rows x 4 weights (SIMPLE..EXPERT), row-major. */
  weights: Float32Array;
  bias: readonly number[];
  /** Softmax temperature fitted on held-out predictions (1 = uncalibrated). */
  temperature: number;
  decision: DecisionPolicy;
  /** Combines the model's and the heuristics' probabilities in `local` mode; absent in older files. */
  blend?: TierBlend | undefined;
  /** Training files, counts and the metrics the trainer printed; informational. */
  metadata: Readonly<Record<string, unknown>>;
}

const modelJsonSchema = z
  .object({
    format: z.literal(LOCAL_MODEL_FORMAT),
    spec: z.object({
      hashBits: z.number().int().min(8).max(24),
      signals: z.array(z.string()),
      numeric: z.array(z.string()),
    }),
    bias: z.array(z.number()).length(4),
    temperature: z.number().positive(),
    decision: z.object({ underPenalty: z.number().min(0) }),
    blend: z
      .object({
        weights: z.array(z.number()).length(BLEND_INPUTS * 4),
        bias: z.array(z.number()).length(4),
      })
      .strict()
      .optional(),
    rows: z.object({
      count: z.number().int().min(0),
      rows: z.string(),
      weights: z.string(),
      step: z.number().positive(),
    }),
    metadata: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

export type LocalModelJson = z.infer<typeof modelJsonSchema>;

export function parseLocalModel(value: unknown): LocalModel {
  const json = modelJsonSchema.parse(value);
  const expected = NUMERIC_FEATURES.join(',');
  if (json.spec.numeric.join(',') !== expected) {
    throw new Error(
      `model numeric features [${json.spec.numeric.join(',')}] do not match this build's [${expected}]`,
    );
  }
  const layout = toFeatureLayout(json.spec);
  return {
    spec: json.spec,
    layout,
    weights: decodeRows(json.rows, layout.rows),
    bias: json.bias,
    temperature: json.temperature,
    decision: json.decision,
    blend: json.blend,
    metadata: json.metadata,
  };
}

/** Reads and validates a model file; errors name the file. */
export function loadLocalModel(path: string): LocalModel {
  try {
    return parseLocalModel(JSON.parse(readFileSync(path, 'utf8')) as unknown);
  } catch (error) {
    throw new Error(
      `cannot load local model ${path}: ${error instanceof Error ? error.message : String(error)}`,
      {
        cause: error,
      },
    );
  }
}

/** Serializes a model, dropping rows whose weights are all below `minWeight` in absolute value. */
export function toLocalModelJson(model: LocalModel, minWeight: number): LocalModelJson {
  return {
    format: LOCAL_MODEL_FORMAT,
    spec: {
      hashBits: model.spec.hashBits,
      signals: [...model.spec.signals],
      numeric: [...model.spec.numeric],
    },
    bias: model.bias.map((value) => Number(value.toFixed(6))),
    temperature: Number(model.temperature.toFixed(4)),
    decision: { underPenalty: model.decision.underPenalty },
    ...(model.blend === undefined
      ? {}
      : {
          blend: {
            weights: model.blend.weights.map((value) => Number(value.toFixed(5))),
            bias: model.blend.bias.map((value) => Number(value.toFixed(5))),
          },
        }),
    rows: encodeRows(model.weights, minWeight),
    metadata: { ...model.metadata },
  };
}
