import { readJsonLines } from './labeled-example.js';
import type { PreparedData } from './model-fitting.js';
import {
  toSpecFingerprint,
  trafficRecordSchema,
  type TrafficRecord,
} from '../src/classify/traffic-record.js';
import { toTierRank } from '../src/shared/tier.js';

/** How `--from-traffic` records train. */
export interface TrafficTraining {
  /**
   * Loss weight of one record, as a weak example's 1 (records share no source cap). In the learning
   * simulation (docs/notes-cascade.md) weight 5 with hard labels gave +8.7 points `local` exact; soft
   * labels (0.87) at weight 1, 3 and 10 gave +4.9, +5.3 and +5.1. @default 5
   */
  weight: number;
  /**
   * Share of a record's target on the LLM's label; the rest goes to the neighbouring tiers, as the
   * classifier LLM's misses are one tier off. 1 (hard labels) did better in the learning simulation
   * (see `weight`). @default 1
   */
  labelShare: number;
}

export const DEFAULT_TRAFFIC_TRAINING: TrafficTraining = Object.freeze({ weight: 5, labelShare: 1 });

/** Reads `classifier.learn` records (JSONL; a Redis list can be saved with `redis-cli LRANGE key 0 -1`). */
export function readTrafficRecords(file: string): TrafficRecord[] {
  return readJsonLines(file, (value) => trafficRecordSchema.parse(value));
}

/** The soft target of a record: `labelShare` on the LLM's tier, the rest split between its neighbours. */
export function toTrafficTarget(record: TrafficRecord, labelShare: number): number[] {
  const rank = toTierRank(record.llm);
  const neighbours = [rank - 1, rank + 1].filter((other) => other >= 0 && other < 4);
  const target = [0, 0, 0, 0];
  target[rank] = labelShare;
  for (const other of neighbours) target[other] = (1 - labelShare) / neighbours.length;
  return target;
}

/**
 * `data` with the records appended as extra weak examples (rows after the encoded ones) and their
 * indices. Throws when a record was written under another feature layout than `data`'s.
 */
export function appendTrafficRows(
  data: PreparedData,
  records: readonly TrafficRecord[],
  training: TrafficTraining,
): { data: PreparedData; indices: number[] } {
  const fingerprint = toSpecFingerprint(data.spec);
  const stranger = records.find((record) => record.spec !== fingerprint);
  if (stranger !== undefined)
    throw new Error(
      `a traffic record has feature spec ${stranger.spec}, this model ${fingerprint}: record again under this model`,
    );
  const start = data.matrix.offsets.length - 1;
  const extra = records.reduce((sum, record) => sum + record.rows.length, 0);
  const offsets = new Int32Array(start + records.length + 1);
  offsets.set(data.matrix.offsets);
  const rows = new Int32Array(data.matrix.rows.length + extra);
  rows.set(data.matrix.rows);
  const values = new Float32Array(data.matrix.values.length + extra);
  values.set(data.matrix.values);
  const targets = new Float32Array((start + records.length) * 4);
  targets.set(data.targets);
  const sampleWeights = new Float32Array(start + records.length);
  sampleWeights.set(data.sampleWeights);
  let position = data.matrix.rows.length;
  records.forEach((record, index) => {
    rows.set(record.rows, position);
    values.set(record.values, position);
    position += record.rows.length;
    offsets[start + index + 1] = position;
    targets.set(toTrafficTarget(record, training.labelShare), (start + index) * 4);
    sampleWeights[start + index] = training.weight;
  });
  return {
    data: { ...data, matrix: { offsets, rows, values }, targets, sampleWeights },
    indices: records.map((_, index) => start + index),
  };
}
