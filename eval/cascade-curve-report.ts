import { toCascadeCombination, createTableLlmStage } from '../src/classify/create-table-classifier.js';
import { DEFAULT_CURVE_THRESHOLDS, DEFAULT_CURVE_VALUES } from './cascade-curve.js';
import { createLocalClassifier } from '../src/classify/local-classifier.js';
import { loadLocalModel } from '../src/classify/local-model.js';
import { loadRoutingTableFile } from '../src/config/load-routing-table.js';
import type { Clock } from '../src/shared/clock.js';
import { formatCascadeCurve, type CurvePoint } from './cascade-curve.js';
import { toModelPath } from './create-variant-runner.js';
import type { EvalOptions } from './eval-options.js';
import { toEvalTable } from './eval-table.js';
import type { EvalVariant } from './eval-variants.js';
import type { EvalFile } from './parse-eval-file.js';
import { runCascadeCurve } from './run-cascade-curve.js';

export interface CurveReport {
  label: string;
  table: string;
  model: string;
  disagreement: string;
  gate: string;
  points: CurvePoint[];
  llmFailures: number;
}

export interface CurveReportOptions {
  input: EvalFile;
  settings: EvalOptions;
  promptTemplate: string;
  defaultModelPath: string;
  readSecret: (name: string) => string | undefined;
  clock: Clock;
}

/** `npm run eval -- <file> --curve`: the cascade's threshold curve for one variant, with its text. */
export async function toCurveReport(
  variant: EvalVariant,
  options: CurveReportOptions,
): Promise<{ report: CurveReport; text: string }> {
  const { settings } = options;
  const loaded = toEvalTable({
    loaded: await loadRoutingTableFile(variant.table, options.clock.now()),
    mode: 'cascade',
    classifierUrl: settings.classifierUrl,
    classifierModel: settings.classifierModel,
    deadlineMs: settings.deadlineMs,
    now: options.clock.now(),
  });
  const llm = createTableLlmStage({
    loaded,
    promptTemplate: options.promptTemplate,
    readSecret: options.readSecret,
  });
  if (llm === undefined) throw new Error('--curve needs a classifier server: pass --classifier-url');
  const model = toModelPath(variant, loaded, options.defaultModelPath);
  const config = loaded.table.classifier;
  const gate = settings.gate ?? config.gate;
  const thresholds =
    settings.curveThresholds ?? (gate === 'value' ? DEFAULT_CURVE_VALUES : DEFAULT_CURVE_THRESHOLDS);
  const result = await runCascadeCurve({
    cases: options.input.cases,
    local: createLocalClassifier({ mode: 'local', model: loadLocalModel(model) }),
    llm,
    rules: { gate, combination: toCascadeCombination(config), threshold: config.threshold },
    thresholds,
    deadlineMs: config.deadline_ms,
    concurrency: settings.concurrency,
  });
  const cutoff =
    gate === 'value'
      ? 'min_value: least expected saving that asks'
      : 'threshold: local confidence below which it asks';
  const title = `cascade curve · ${variant.label} · gate ${gate} (${cutoff}) · disagreement ${config.disagreement} · ${options.input.cases.length} prompts, ${result.llmFailures} LLM calls failed`;
  return {
    report: {
      label: variant.label,
      table: variant.table,
      model,
      disagreement: config.disagreement,
      gate,
      ...result,
    },
    text: formatCascadeCurve(title, result.points),
  };
}
