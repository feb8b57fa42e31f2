import { existsSync, readFileSync } from 'node:fs';
import type { PreparedData } from './model-fitting.js';
import { evaluateHoldout, roundMetrics, type HoldoutSet } from './holdout-evaluation.js';
import { formatTierMetrics } from './tier-metrics.js';
import { appendTrafficRows, readTrafficRecords, type TrafficTraining } from './traffic-examples.js';
import { toSha256 } from './training-inputs.js';

/** What `--from-traffic` adds to a training run: the extended data, the records' indices, the metadata. */
export interface TrafficAddition {
  data: PreparedData;
  indices: number[];
  metadata: Record<string, unknown> | undefined;
}

/**
 * `npm run train -- --from-traffic <records>`: the `classifier.learn` records of
 * `files` appended to `data` as extra weak examples; with no files, `data` unchanged.
 */
export function addTraffic(
  data: PreparedData,
  files: readonly string[],
  training: TrafficTraining,
): TrafficAddition {
  if (files.length === 0) return { data, indices: [], metadata: undefined };
  const records = files.flatMap((file) => readTrafficRecords(file));
  const added = appendTrafficRows(data, records, training);
  return {
    ...added,
    metadata: {
      files: files.map((file) => ({ path: file, sha256: toSha256(file) })),
      records: records.length,
      weight: training.weight,
      labelShare: training.labelShare,
    },
  };
}

/** Scores the model file at `path` on each held-out set: the "before" of a `--from-traffic` refit. */
export function reportBefore(
  path: string,
  sets: readonly HoldoutSet[],
  log: (line: string) => void,
): Record<string, Record<string, number>> {
  if (!existsSync(path)) {
    log(`before: no model at ${path}`);
    return {};
  }
  const serialized = readFileSync(path, 'utf8');
  const result: Record<string, Record<string, number>> = {};
  for (const set of sets) {
    if (set.examples.length === 0) continue;
    const local = evaluateHoldout(serialized, set).modes['local'];
    if (local === undefined) continue;
    log(`before (${path}), ${set.name}: local ${formatTierMetrics(local)}`);
    result[set.name] = roundMetrics(local);
  }
  return result;
}
