import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Classifier } from './classify/decision.js';
import { createTableClassifier } from './classify/create-table-classifier.js';
import { loadLocalModel, type LocalModel } from './classify/local-model.js';
import { toTableRelativePath, type LoadedTable } from './config/load-routing-table.js';
import { CLASSIFIER_PROMPT_PATH, DEFAULT_MODEL_PATH } from './project-paths.js';
import { systemClock } from './shared/clock.js';
import type { Logger } from './shared/logger.js';
import type { TrafficLearning } from './traffic-learning.js';

export interface ClassifierFactoryOptions {
  logger: Logger;
  readSecret: (name: string) => string | undefined;
  learning: TrafficLearning;
  /** Entries evicted from the classification cache. */
  onCacheEvict: (count: number) => void;
}

function toModelPath(loaded: LoadedTable): string {
  const file = loaded.table.classifier.model_file;
  if (file === undefined) return DEFAULT_MODEL_PATH;
  return toTableRelativePath(loaded.source, file);
}

/**
 * The classifier of each table the service serves (the first and every reload): the learned model,
 * read once per file and modification time (a reload after `npm run train -- --from-traffic` reads
 * the new file), the LLM stage's prompt, and `classifier.learn`'s recording hook.
 */
export async function createTableClassifierFactory(
  options: ClassifierFactoryOptions,
): Promise<(loaded: LoadedTable) => Classifier> {
  const { logger, readSecret, learning } = options;
  const promptTemplate = await readFile(CLASSIFIER_PROMPT_PATH, 'utf8');
  const models = new Map<string, LocalModel>();
  const modelFor = (loaded: LoadedTable): LocalModel => {
    const path = toModelPath(loaded);
    const key = `${path}@${statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0}`;
    let model = models.get(key);
    if (model === undefined) {
      model = loadLocalModel(path);
      models.set(key, model);
    }
    return model;
  };
  return (loaded) => {
    const model = modelFor(loaded);
    const onLlmDecision = learning.hookFor(loaded, model);
    return createTableClassifier({
      loaded,
      model,
      promptTemplate,
      clock: systemClock,
      logger,
      readSecret,
      onCacheEvict: options.onCacheEvict,
      ...(onLlmDecision === undefined ? {} : { onLlmDecision }),
    });
  };
}
