import { createTableClassifier } from '../src/classify/create-table-classifier.js';
import type { Classifier, ClassifierMode } from '../src/classify/decision.js';
import { createLocalClassifier } from '../src/classify/local-classifier.js';
import type { LocalModel } from '../src/classify/local-model.js';
import type { LoadedTable } from '../src/config/load-routing-table.js';
import type { Logger } from '../src/shared/logger.js';
import type { Clock } from '../src/shared/clock.js';

export interface EvalClassifierOptions {
  mode: ClassifierMode;
  /** The table as `toEvalTable` prepared it for this mode. */
  loaded: LoadedTable;
  /** The learned model; required in every mode but `heuristic`. */
  model: LocalModel | undefined;
  /** prompts/classifier.md as read from disk. */
  promptTemplate: string;
  readSecret: (name: string) => string | undefined;
  clock: Clock;
  logger: Logger;
}

/**
 * The classifier under test, built by the same core functions the service uses: `local`, `cascade`
 * and `llm` go through `createTableClassifier`, exactly as a request would. `heuristic` and `learned`
 * are not service modes; they run one local stage alone through `createLocalClassifier`.
 */
export function createEvalClassifier(options: EvalClassifierOptions): Classifier {
  const { mode, model } = options;
  if (mode === 'heuristic') return createLocalClassifier({ mode });
  if (model === undefined) throw new Error(`mode ${mode} needs a learned model file`);
  if (mode === 'learned') return createLocalClassifier({ mode, model });
  return createTableClassifier({
    loaded: options.loaded,
    model,
    promptTemplate: options.promptTemplate,
    clock: options.clock,
    logger: options.logger,
    readSecret: options.readSecret,
  });
}
