import type { ClassifierCause, ClassifierMode } from '../src/classify/decision.js';
import type { Tier } from '../src/shared/tier.js';
import { toConfusionMatrix, type ConfusionMatrix } from './confusion-matrix.js';
import type { Facet } from './eval-case.js';
import { toFacetBreakdowns, type GroupSummary } from './facet-breakdown.js';
import { toLatencySummary, toStageLatency, type LatencySummary, type Stage } from './latency-summary.js';
import type { MalformedLine } from './parse-eval-file.js';
import { toRulesReport, type RulesReport } from './rules-report.js';
import type { TableRule } from '../src/classify/table-rules.js';
import { toRelativeCost, type TierCostWeights } from './routing-cost.js';
import { toAcceptableAccuracy, toAccuracy, toRoutingRates, toRoutingRatesByTier } from './routing-rates.js';
import { toRate, type ScoredCase } from './scored-case.js';
import { toMacroF1, toTierScores, type TierScore } from './tier-scores.js';
import { toWorstMisroutes, type Misroute } from './worst-misroutes.js';

/** What was run: one column of a comparison. */
export interface EvalRun {
  /** Short name shown in tables, e.g. `local` or `local · model-b.json`. */
  label: string;
  mode: ClassifierMode;
  file: string;
  table: string;
  /** Learned model file; null in heuristic mode. */
  model: string | null;
}

export interface PerTierReport extends TierScore {
  /** Among cases of this gold tier, 0..1. */
  under_routing_rate: number;
  over_routing_rate: number;
}

/** The `--json` document of one run; every rate is a fraction 0..1, every latency in milliseconds. */
export interface EvalReport extends EvalRun {
  /** Non-blank lines read: `n + malformed.length`. */
  lines: number;
  /** Cases scored. */
  n: number;
  malformed: readonly MalformedLine[];
  accuracy: number;
  acceptable_accuracy: number;
  macro_f1: number;
  under_routing_rate: number;
  over_routing_rate: number;
  /**
   * Share of cases whose classification called the LLM stage, as the service runs: a case an exact
   * table rule decided calls no classifier (the eval still classifies it, for `rules.without_rules`).
   */
  llm_call_rate: number;
  cost: {
    /** Predicted routing's compute as a fraction of sending everything to EXPERT. */
    relative_to_expert: number;
    /** The same for the gold labels: what a perfect classifier would spend. */
    gold_relative_to_expert: number;
    tier_weights: TierCostWeights;
  };
  /** gold tier -> predicted tier -> count. */
  confusion: ConfusionMatrix;
  per_tier: Record<Tier, PerTierReport>;
  /** Whole classify call; `stages` only over the cases where that stage ran. */
  latency_ms: LatencySummary & { stages: Record<Stage, LatencySummary> };
  /** Cases by the stage that decided. */
  causes: Record<ClassifierCause, number>;
  breakdowns: Partial<Record<Facet, GroupSummary[]>>;
  worst_misroutes: Misroute[];
  /** What the table's `classifier.rules` did; null when it has none. Headline figures are with them. */
  rules: RulesReport | null;
}

export interface EvalReportInput {
  run: EvalRun;
  cases: readonly ScoredCase[];
  malformed: readonly MalformedLine[];
  weights: TierCostWeights;
  /** Misroutes kept in the report. */
  worst: number;
  /** The table's compiled `classifier.rules`. @default none */
  tableRules?: readonly TableRule[];
}

function toPerTier(cases: readonly ScoredCase[], confusion: ConfusionMatrix): Record<Tier, PerTierReport> {
  const scores = toTierScores(confusion);
  const rates = toRoutingRatesByTier(cases);
  const of = (tier: Tier): PerTierReport => ({
    ...scores[tier],
    under_routing_rate: rates[tier].under,
    over_routing_rate: rates[tier].over,
  });
  return { SIMPLE: of('SIMPLE'), MODERATE: of('MODERATE'), COMPLEX: of('COMPLEX'), EXPERT: of('EXPERT') };
}

function toCauses(cases: readonly ScoredCase[]): Record<ClassifierCause, number> {
  const causes: Record<ClassifierCause, number> = { heuristic: 0, learned: 0, llm: 0, cache: 0, fallback: 0 };
  for (const scored of cases) causes[scored.decision.cause] += 1;
  return causes;
}

function toLatency(cases: readonly ScoredCase[]): EvalReport['latency_ms'] {
  return {
    ...toLatencySummary(cases.map((scored) => scored.totalMs)),
    stages: {
      heuristic: toStageLatency(cases, 'heuristic'),
      learned: toStageLatency(cases, 'learned'),
      llm: toStageLatency(cases, 'llm'),
    },
  };
}

export function toEvalReport(input: EvalReportInput): EvalReport {
  const { cases, weights } = input;
  const confusion = toConfusionMatrix(cases);
  const perTier = toPerTier(cases, confusion);
  const rates = toRoutingRates(cases);
  return {
    ...input.run,
    lines: cases.length + input.malformed.length,
    n: cases.length,
    malformed: input.malformed,
    accuracy: toAccuracy(cases),
    acceptable_accuracy: toAcceptableAccuracy(cases),
    macro_f1: toMacroF1(perTier),
    under_routing_rate: rates.under,
    over_routing_rate: rates.over,
    llm_call_rate: toRate(
      cases.filter((scored) => scored.decision.llmCalled && scored.rules?.exact !== true).length,
      cases.length,
    ),
    cost: {
      relative_to_expert: toRelativeCost(
        cases.map((scored) => scored.predicted),
        weights,
      ),
      gold_relative_to_expert: toRelativeCost(
        cases.map((scored) => scored.gold),
        weights,
      ),
      tier_weights: weights,
    },
    confusion,
    per_tier: perTier,
    latency_ms: toLatency(cases),
    causes: toCauses(cases),
    breakdowns: toFacetBreakdowns(cases),
    worst_misroutes: toWorstMisroutes(cases, input.worst),
    rules: toRulesReport(cases, input.tableRules ?? []),
  };
}

/** The `--json` document: one run's report as is; a comparison as `{ file, variants: [report...] }`. */
export function toReportDocument(
  reports: readonly EvalReport[],
): EvalReport | { file: string; variants: readonly EvalReport[] } {
  const [first] = reports;
  return reports.length === 1 && first !== undefined ? first : { file: first?.file ?? '', variants: reports };
}
