import { readFile } from 'node:fs/promises';
import {
  createTableClassifier,
  type TableClassifierOptions,
} from '../../src/classify/create-table-classifier.js';
import type { Classifier } from '../../src/classify/decision.js';
import { loadLocalModel, type LocalModel } from '../../src/classify/local-model.js';
import type { LoadedTable } from '../../src/config/load-routing-table.js';
import { CLASSIFIER_PROMPT_PATH, DEFAULT_MODEL_PATH } from '../../src/project-paths.js';
import { systemClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';

export interface ShippedClassifier {
  model: LocalModel;
  /** The table's classifier as main.ts builds it: shipped model and prompt, no secrets, silent logs. */
  forTable(loaded: LoadedTable, hooks?: Pick<TableClassifierOptions, 'onLlmDecision'>): Classifier;
}

/** Loads the shipped local model and classifier prompt once, for tests that route `auto` for real. */
export async function loadShippedClassifier(): Promise<ShippedClassifier> {
  const model = loadLocalModel(DEFAULT_MODEL_PATH);
  const promptTemplate = await readFile(CLASSIFIER_PROMPT_PATH, 'utf8');
  return {
    model,
    forTable: (loaded, hooks = {}) =>
      createTableClassifier({
        loaded,
        model,
        promptTemplate,
        clock: systemClock,
        logger: silentLogger,
        readSecret: () => undefined,
        ...hooks,
      }),
  };
}
