import { createHash } from 'node:crypto';
import { z } from 'zod';
import { TIERS, type Tier } from '../shared/tier.js';
import type { LlmDecisionEvent } from './cascade-classifier.js';
import type { LocalModel } from './local-model.js';
import { toSparseFeatures } from './sparse-features.js';
import { toTextProfile } from './text-profile.js';
import { toProbabilityArray } from './tier-probabilities.js';

export const TRAFFIC_RECORD_FORMAT = 'autotier-traffic/1';

/**
 * One request the LLM stage decided, as `classifier.learn` writes it: the hashed
 * feature rows and values the local model read, the LLM's label and the local prediction. Never the
 * request's text: n-gram rows are hashes modulo 2^hashBits, the rest heuristic signal flags and numbers.
 */
export const trafficRecordSchema = z
  .object({
    format: z.literal(TRAFFIC_RECORD_FORMAT),
    /** Milliseconds since the epoch. */
    time: z.number(),
    /** Which feature layout the rows index: a hash of the model's feature spec. */
    spec: z.string(),
    rows: z.array(z.number().int().nonnegative()),
    values: z.array(z.number()),
    llm: z.enum(TIERS),
    local: z.enum(TIERS),
    /** Local probabilities SIMPLE..EXPERT, 4 decimals. */
    probabilities: z.array(z.number()).length(4),
  })
  .strict()
  .refine((record) => record.rows.length === record.values.length, {
    message: 'rows and values differ in length',
  });

export type TrafficRecord = z.infer<typeof trafficRecordSchema>;

/** A short hash of a model's feature spec; records of another layout cannot train this model. */
export function toSpecFingerprint(spec: LocalModel['spec']): string {
  const text = JSON.stringify([spec.hashBits, spec.signals, spec.numeric]);
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

/** The record of one LLM-decided request under `model`'s feature layout. */
export function toTrafficRecord(event: LlmDecisionEvent, model: LocalModel, time: number): TrafficRecord {
  const features = toSparseFeatures(
    {
      input: event.input,
      profile: toTextProfile(event.input.lowerText),
      signals: model.spec.signals.length > 0 ? event.local.signals : [],
    },
    model.layout,
  );
  const llm: Tier = event.verdict.complexity;
  return {
    format: TRAFFIC_RECORD_FORMAT,
    time,
    spec: toSpecFingerprint(model.spec),
    rows: features.rows,
    values: features.values.map((value) => round(value, 6)),
    llm,
    local: event.local.tier,
    probabilities: toProbabilityArray(event.local.probabilities).map((share) => round(share, 4)),
  };
}
