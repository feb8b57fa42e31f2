import { toTierRank } from '../src/shared/tier.js';
import type { LabeledExample } from './labeled-example.js';
import { findRefinedTarget } from './weak-label-refinements.js';

/**
 * Weak-label agreement per source, from the datasets README ("How far to trust each source's weak
 * labels": mapped label equal to gold on `agree` of `items` dev items). Sources not listed agreed fully.
 */
export const WEAK_LABEL_AGREEMENT: Readonly<Record<string, { agree: number; items: number }>> = Object.freeze(
  {
    'Aider-AI__refactor-benchmark': { agree: 0, items: 10 },
    'openai__grade-school-math': { agree: 8, items: 20 },
    'jincan333__MAS-TTS': { agree: 22, items: 48 },
    'lmarena__arena-hard-auto': { agree: 44, items: 75 },
    'qwopqwop200__ko-arena-hard-auto': { agree: 13, items: 20 },
    'QwenLM__Qwen2.5-Math': { agree: 36, items: 53 },
    benedictflorance__truthfulqa_experiments: { agree: 14, items: 20 },
    'lm-sys__FastChat': { agree: 29, items: 40 },
    songys__Chatbot_data: { agree: 29, items: 40 },
    'yizhongw__self-instruct': { agree: 44, items: 60 },
    'nlpai-lab__KULLM': { agree: 15, items: 20 },
    'lm-sys__arena-hard-auto': { agree: 32, items: 40 },
    microsoft__CodeT: { agree: 8, items: 10 },
    'clinc__oos-eval': { agree: 33, items: 40 },
    newfacade__LeetCodeDataset: { agree: 13, items: 15 },
    josejg__instruction_following_eval: { agree: 23, items: 25 },
  },
);

export interface TargetOptions {
  /** Share of a two-tier gold example's target on its label; the rest goes to the other acceptable tier. @default 0.8 */
  goldLabelShare: number;
  /** Spread weak labels by the agreement table (false = take mapped labels as they are). @default true */
  softenWeakLabels: boolean;
  /** Use WEAK_LABEL_REFINEMENTS for sources with difficulty levels. @default true */
  refineWeakLabels: boolean;
  /**
   * Share of a reviewed weak example's target on its reviewed label; the rest goes to the neighbouring
   * tiers, as an annotator's misses are one tier off.
   */
  reviewedLabelShare: number;
}

/**
 * Soft target of one example, four shares summing to 1. A gold example puts `goldLabelShare` on its
 * label when annotators disagreed. A weak example keeps its source's smoothed agreement on the mapped
 * tier and moves the rest one tier in the README's usual direction: down from COMPLEX and EXPERT
 * ("one tier too high"), up from SIMPLE, split both ways from MODERATE.
 */
export function toTarget(example: LabeledExample, options: TargetOptions): number[] {
  const rank = toTierRank(example.label);
  if (example.gold) {
    const others = example.acceptable.filter((tier) => tier !== example.label).map(toTierRank);
    return spread(rank, others.length > 0 ? options.goldLabelShare : 1, others);
  }
  if (example.reviewed) {
    const neighbours = [rank - 1, rank + 1].filter((neighbour) => neighbour >= 0 && neighbour < 4);
    return spread(rank, options.reviewedLabelShare, neighbours);
  }
  const refined = options.refineWeakLabels ? findRefinedTarget(example.source, example.native) : undefined;
  if (refined !== undefined) return refined;
  const agreement = options.softenWeakLabels ? WEAK_LABEL_AGREEMENT[example.source] : undefined;
  const keep = agreement === undefined ? 1 : (agreement.agree + 1) / (agreement.items + 2);
  return spread(rank, keep, rank >= 2 ? [rank - 1] : rank === 0 ? [1] : [0, 2]);
}

/** `keep` on `rank`, the rest split evenly between the `others` ranks. */
function spread(rank: number, keep: number, others: readonly number[]): number[] {
  const target = [0, 0, 0, 0];
  target[rank] = keep;
  for (const other of others) target[other] = (target[other] ?? 0) + (1 - keep) / others.length;
  return target;
}
