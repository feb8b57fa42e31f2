import type { LabeledExample } from './labeled-example.js';

/** The group of every prompt we wrote ourselves: `data/written-train.jsonl` and `eval/prompts.jsonl`. */
export const OWN_PROMPTS_GROUP = 'autotier (ours)';

/**
 * The group a grouped cross-validation holds out together: a public dataset's `source`, so
 * a held-out source's gold prompts and its weak pool leave training together, and one group for all
 * of our own prompts (`autotier`, `autotier-written-*`), written by the same agents against the
 * same rubric.
 */
export function toSourceGroup(example: Pick<LabeledExample, 'source'>): string {
  return example.source === 'autotier' || example.source.startsWith('autotier-')
    ? OWN_PROMPTS_GROUP
    : example.source;
}

/**
 * Fold of each group: leave-one-group-out when `folds` is 0 or at least the number of groups, else
 * `folds` grouped folds, groups dealt round-robin in name order (so a fold's groups do not depend on
 * the seed or the file order).
 */
export function toGroupFolds(groups: readonly string[], folds: number): Map<string, number> {
  const names = [...new Set(groups)].sort();
  const count = folds <= 0 || folds >= names.length ? names.length : folds;
  return new Map(names.map((name, index) => [name, index % count]));
}
