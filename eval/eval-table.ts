import { stringify } from 'yaml';
import type { ClassifierMode } from '../src/classify/decision.js';
import { parseRoutingTable, type LoadedTable } from '../src/config/load-routing-table.js';
import { deploymentSchema } from '../src/config/table-part-schemas.js';
import type { RoutingTable } from '../src/config/routing-table-schema.js';

/** Id of the deployment added for `--classifier-url` when the table names no classifier deployment. */
export const EVAL_CLASSIFIER_ID = 'eval-classifier';

/** Served model name of that added deployment. @default Qwen/Qwen3-8B, the design's classifier */
export const DEFAULT_CLASSIFIER_MODEL = 'Qwen/Qwen3-8B';

export interface EvalTableOptions {
  loaded: LoadedTable;
  mode: ClassifierMode;
  /** OpenAI-compatible base URL (ending in /v1) of the classifier model; replaces the table's. */
  classifierUrl?: string | undefined;
  /** Served model name, only used when the table names no classifier deployment. */
  classifierModel?: string | undefined;
  /** Replaces `classifier.deadline_ms`, in ms. */
  deadlineMs?: number | undefined;
  /** Wall-clock ms recorded as the table's load time. */
  now: number;
}

function pointClassifierAt(table: RoutingTable, url: string, model: string): void {
  const named = table.classifier.deployment;
  const existing = table.deployments.find((deployment) => deployment.id === named);
  if (existing !== undefined) {
    existing.base_url = url;
    return;
  }
  table.deployments.push(
    deploymentSchema.parse({ id: EVAL_CLASSIFIER_ID, model, base_url: url, context_window: 32_768 }),
  );
  table.classifier.deployment = EVAL_CLASSIFIER_ID;
}

/**
 * The routing table as the eval runs it: the classifier mode overridden (heuristic and learned
 * bypass the table's classifier, so they get `local`), the cache off so repeated prompts are
 * measured honestly, and optionally another classifier server or deadline. The loaded table is
 * deep-frozen, so this edits a copy and validates it again like any table.
 */
export function toEvalTable(options: EvalTableOptions): LoadedTable {
  const table = structuredClone(options.loaded.table);
  const { mode } = options;
  table.classifier.mode = mode === 'cascade' || mode === 'llm' ? mode : 'local';
  table.classifier.cache.max_entries = 0;
  if (options.deadlineMs !== undefined) table.classifier.deadline_ms = options.deadlineMs;
  if (options.classifierUrl !== undefined) {
    pointClassifierAt(table, options.classifierUrl, options.classifierModel ?? DEFAULT_CLASSIFIER_MODEL);
  }
  if (table.classifier.mode !== 'local' && table.classifier.deployment === undefined) {
    throw new Error(
      `mode ${mode} needs a classifier server: the table ${options.loaded.source} names no classifier.deployment; pass --classifier-url`,
    );
  }
  return parseRoutingTable({ text: stringify(table), source: options.loaded.source, now: options.now });
}
