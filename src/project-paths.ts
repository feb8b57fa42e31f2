import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root: one level above src/ (tsx) or dist/ (node). */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The shipped learned model, loaded unless a table names its own `classifier.model_file`. */
export const DEFAULT_MODEL_PATH = join(PROJECT_ROOT, 'src/classify/model/local-model.json');
/** The classifier LLM's system prompt template. */
export const CLASSIFIER_PROMPT_PATH = join(PROJECT_ROOT, 'prompts/classifier.md');
