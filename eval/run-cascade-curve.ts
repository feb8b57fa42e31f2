import { toClassifyInput } from '../src/classify/classify-input.js';
import type { LlmStage } from '../src/classify/llm-stage.js';
import type { LocalClassifier } from '../src/classify/local-classifier.js';
import { toCascadeCurve, type CurveItem, type CurvePoint, type CurveRules } from './cascade-curve.js';
import type { EvalCase } from './eval-case.js';
import { mapWithConcurrency } from './map-with-concurrency.js';

export interface CascadeCurveOptions {
  cases: readonly EvalCase[];
  local: LocalClassifier;
  llm: LlmStage;
  rules: CurveRules;
  /** Cutoffs of the gate to score. */
  thresholds: readonly number[];
  /** Deadline of each LLM call, ms (a late answer counts as a failed call, as in the service). */
  deadlineMs: number;
  concurrency: number;
  onProgress?: (done: number) => void;
}

export interface CascadeCurveResult {
  points: CurvePoint[];
  /** LLM calls that failed or missed the deadline (those prompts take the cascade's fallback). */
  llmFailures: number;
}

/**
 * The cascade's curve against a classifier endpoint: every prompt is scored by
 * the local stage and asked of the LLM once, then each threshold's decisions follow the cascade's own
 * rules (`toCascadeChoice`), so a 15-point curve costs one LLM call per prompt.
 */
export async function runCascadeCurve(options: CascadeCurveOptions): Promise<CascadeCurveResult> {
  const items = await mapWithConcurrency(
    options.cases,
    async (evalCase): Promise<CurveItem> => {
      const input = toClassifyInput(evalCase.request);
      const local = options.local.classifyInput(input);
      const outcome = await options.llm.ask(input, AbortSignal.timeout(options.deadlineMs));
      return { gold: evalCase.label, local, verdict: outcome.ok ? outcome.verdict.complexity : undefined };
    },
    {
      limit: options.concurrency,
      ...(options.onProgress === undefined ? {} : { onSettled: options.onProgress }),
    },
  );
  return {
    points: toCascadeCurve(items, options.thresholds, options.rules),
    llmFailures: items.filter((item) => item.verdict === undefined).length,
  };
}
