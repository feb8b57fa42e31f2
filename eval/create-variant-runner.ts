import { dirname, isAbsolute, resolve } from 'node:path';
import { loadLocalModel, type LocalModel } from '../src/classify/local-model.js';
import { compileTableRules } from '../src/classify/table-rules.js';
import { loadRoutingTableFile, type LoadedTable } from '../src/config/load-routing-table.js';
import { silentLogger } from '../src/shared/logger.js';
import type { Clock } from '../src/shared/clock.js';
import { createEvalClassifier } from './create-eval-classifier.js';
import type { EvalOptions } from './eval-options.js';
import { toEvalReport, type EvalReport } from './eval-report.js';
import { toEvalTable } from './eval-table.js';
import type { EvalVariant } from './eval-variants.js';
import type { EvalFile } from './parse-eval-file.js';
import type { ProgressReporter } from './progress-bar.js';
import { toTierCostWeights } from './routing-cost.js';
import { runEval } from './run-eval.js';

/** Cases classified unmeasured before a local run, to warm the JIT. */
const LOCAL_WARMUP_CASES = 20;

export interface VariantRunnerOptions {
  /** The input file's path as shown in reports. */
  file: string;
  input: EvalFile;
  settings: Pick<EvalOptions, 'classifierUrl' | 'classifierModel' | 'deadlineMs' | 'concurrency' | 'worst'>;
  promptTemplate: string;
  /** The bundled model, used when neither `--model` nor the table's `model_file` names one. */
  defaultModelPath: string;
  readSecret: (name: string) => string | undefined;
  createProgress: (variant: EvalVariant) => ProgressReporter;
  clock: Clock;
  /** High-resolution milliseconds, for latencies. */
  now: () => number;
}

export interface VariantRunner {
  run(variant: EvalVariant): Promise<EvalReport>;
}

/** The model a variant reads: `--model`, else the table's `model_file` (relative to the table), else the default. */
export function toModelPath(variant: EvalVariant, loaded: LoadedTable, defaultPath: string): string {
  if (variant.model !== undefined) return variant.model;
  const file = loaded.table.classifier.model_file;
  if (file === undefined) return defaultPath;
  return isAbsolute(file) ? file : resolve(dirname(loaded.source), file);
}

/** Runs variants one after another; tables and models are loaded once and shared between them. */
export function createVariantRunner(options: VariantRunnerOptions): VariantRunner {
  const tables = new Map<string, Promise<LoadedTable>>();
  const models = new Map<string, LocalModel>();
  const tableAt = (path: string): Promise<LoadedTable> => {
    const loaded = tables.get(path) ?? loadRoutingTableFile(path, options.clock.now());
    tables.set(path, loaded);
    return loaded;
  };
  const modelAt = (path: string): LocalModel => {
    const model = models.get(path) ?? loadLocalModel(path);
    models.set(path, model);
    return model;
  };

  async function run(variant: EvalVariant): Promise<EvalReport> {
    const { settings } = options;
    const loaded = await tableAt(variant.table);
    const modelPath =
      variant.mode === 'heuristic' ? undefined : toModelPath(variant, loaded, options.defaultModelPath);
    const classifier = createEvalClassifier({
      mode: variant.mode,
      loaded: toEvalTable({
        loaded,
        mode: variant.mode,
        classifierUrl: settings.classifierUrl,
        classifierModel: settings.classifierModel,
        deadlineMs: settings.deadlineMs,
        now: options.clock.now(),
      }),
      model: modelPath === undefined ? undefined : modelAt(modelPath),
      promptTemplate: options.promptTemplate,
      readSecret: options.readSecret,
      clock: options.clock,
      logger: silentLogger,
    });
    const tableRules = compileTableRules(loaded.table.classifier.rules);
    const progress = options.createProgress(variant);
    const callsLlm = variant.mode === 'cascade' || variant.mode === 'llm';
    const cases = await runEval({
      cases: options.input.cases,
      classifier,
      tableRules,
      concurrency: callsLlm ? settings.concurrency : 1,
      warmup: callsLlm ? 0 : LOCAL_WARMUP_CASES,
      now: options.now,
      onProgress: (done) => progress.update(done),
    }).finally(() => progress.finish());
    return toEvalReport({
      run: {
        label: variant.label,
        mode: variant.mode,
        file: options.file,
        table: variant.table,
        model: modelPath ?? null,
      },
      cases,
      malformed: options.input.malformed,
      weights: toTierCostWeights(loaded.table),
      worst: settings.worst,
      tableRules,
    });
  }

  return { run };
}
