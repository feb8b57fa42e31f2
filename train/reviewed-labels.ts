import { z } from 'zod';
import { TIERS, toTierRank, type Tier } from '../src/shared/tier.js';
import { readJsonLines, type LabeledExample } from './labeled-example.js';

/**
 * One line of a reviewed-labels file: the id of a weak example and the tier an annotator gave it after
 * reading the prompt against the rubric. The file holds ids and labels only, never prompt text, so a
 * dataset's prompts stay in the dataset.
 */
const reviewedLineSchema = z.looseObject({
  id: z.string().min(1),
  label: z.enum(TIERS),
});

/** Reads a reviewed-labels JSONL file into id -> tier; a bad line or a repeated id fails with its line. */
export function readReviewedLabels(file: string): Map<string, Tier> {
  const labels = new Map<string, Tier>();
  readJsonLines(file, (value) => {
    const { id, label } = reviewedLineSchema.parse(value);
    if (labels.has(id)) throw new Error(`id ${id} is listed twice`);
    labels.set(id, label);
  });
  return labels;
}

export interface ReviewedLabelsResult {
  examples: LabeledExample[];
  /** Weak examples that took a reviewed label. */
  applied: number;
  /** Of those, how many changed tier. */
  changed: number;
  /** Ids in the reviewed file that match no weak example (a gold example keeps its own label). */
  unmatched: string[];
}

/** Gives each listed weak example its reviewed label and marks it `reviewed`; gold examples are left alone. */
export function applyReviewedLabels(
  examples: readonly LabeledExample[],
  reviewed: ReadonlyMap<string, Tier>,
): ReviewedLabelsResult {
  const matched = new Set<string>();
  let changed = 0;
  const result = examples.map((example) => {
    const label = example.gold ? undefined : reviewed.get(example.id);
    if (label === undefined) return example;
    matched.add(example.id);
    if (label !== example.label) changed += 1;
    return { ...example, label, acceptable: [label], reviewed: true };
  });
  const unmatched = [...reviewed.keys()].filter((id) => !matched.has(id));
  return { examples: result, applied: matched.size, changed, unmatched };
}

export interface ReviewAgreement {
  /** Listed examples found in the labeled files. */
  count: number;
  agree: number;
  /** Reviewed tier below / above the file's label. */
  lower: number;
  higher: number;
  /** counts[fileTier][reviewedTier], in TIERS order. */
  confusion: number[][];
}

/** How a reviewed-labels file agrees with the labels of the examples it lists (gold or weak). */
export function compareReviewedLabels(
  examples: readonly LabeledExample[],
  reviewed: ReadonlyMap<string, Tier>,
): ReviewAgreement {
  const confusion = TIERS.map(() => TIERS.map(() => 0));
  const result: ReviewAgreement = { count: 0, agree: 0, lower: 0, higher: 0, confusion };
  for (const example of examples) {
    const label = reviewed.get(example.id);
    if (label === undefined) continue;
    const given = toTierRank(example.label);
    const review = toTierRank(label);
    result.count += 1;
    if (review === given) result.agree += 1;
    else if (review < given) result.lower += 1;
    else result.higher += 1;
    const row = confusion[given];
    if (row !== undefined) row[review] = (row[review] ?? 0) + 1;
  }
  return result;
}
