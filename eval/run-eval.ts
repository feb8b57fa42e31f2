import type { Classifier } from '../src/classify/decision.js';
import type { TableRule } from '../src/classify/table-rules.js';
import { applyCaseRules } from './apply-case-rules.js';
import type { EvalCase } from './eval-case.js';
import { mapWithConcurrency } from './map-with-concurrency.js';
import type { ScoredCase } from './scored-case.js';

export interface RunEvalOptions {
  cases: readonly EvalCase[];
  classifier: Classifier;
  /** The routing table's `classifier.rules`, compiled; applied after the classifier. @default none */
  tableRules?: readonly TableRule[];
  /**
   * Classify calls in flight at once. Use 1 for the local modes: their work is synchronous, and with
   * more in flight each call's measured time would include the others' work.
   */
  concurrency: number;
  /** Leading cases classified once, unmeasured, before the run, so JIT warm-up does not skew latency. */
  warmup?: number;
  /** High-resolution milliseconds, for the whole-call latency. */
  now: () => number;
  onProgress?: (done: number) => void;
}

/** Classifies every case through the classifier under test, then the table's rules, keeping file order. */
export async function runEval(options: RunEvalOptions): Promise<ScoredCase[]> {
  const { classifier, now } = options;
  const tableRules = options.tableRules ?? [];
  for (const evalCase of options.cases.slice(0, options.warmup ?? 0))
    await classifier.classify(evalCase.request);
  const score = async (evalCase: EvalCase): Promise<ScoredCase> => {
    const started = now();
    try {
      const decision = await classifier.classify(evalCase.request);
      const ruled =
        tableRules.length === 0
          ? undefined
          : await applyCaseRules({
              rules: tableRules,
              messages: evalCase.request.messages,
              classified: decision.tier,
            });
      return {
        case: evalCase,
        gold: evalCase.label,
        predicted: ruled?.tier ?? decision.tier,
        acceptable: evalCase.acceptable,
        decision,
        ...(ruled === undefined ? {} : { rules: ruled.rules }),
        totalMs: now() - started,
      };
    } catch (error) {
      throw new Error(`case ${evalCase.id} (line ${evalCase.line}): ${(error as Error).message}`, {
        cause: error,
      });
    }
  };
  return mapWithConcurrency(options.cases, score, {
    limit: options.concurrency,
    ...(options.onProgress === undefined ? {} : { onSettled: options.onProgress }),
  });
}
