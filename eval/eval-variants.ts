import { basename } from 'node:path';
import type { ClassifierMode } from '../src/classify/decision.js';

/** One column of a comparison: a mode with one routing table and one model file. */
export interface EvalVariant {
  label: string;
  mode: ClassifierMode;
  table: string;
  /** Model file from `--model`; undefined = the table's `model_file` or the bundled model. */
  model: string | undefined;
}

export interface VariantChoice {
  modes: readonly ClassifierMode[];
  tables: readonly string[];
  models: readonly string[];
}

/** File names, unless two share a name: then the paths as given. */
function toShortNames(paths: readonly string[]): Map<string, string> {
  const names = paths.map((path) => basename(path));
  const unique = new Set(names).size === names.length;
  return new Map(paths.map((path, index) => [path, unique ? (names[index] ?? path) : path]));
}

/**
 * Every mode with every table and every model. Labels name only what varies; heuristic mode reads
 * no model, so it runs once per table.
 */
export function toEvalVariants(choice: VariantChoice): EvalVariant[] {
  const tableNames = toShortNames(choice.tables);
  const modelNames = toShortNames(choice.models);
  const models = choice.models.length === 0 ? [undefined] : choice.models;
  return choice.modes.flatMap((mode) =>
    choice.tables.flatMap((table) =>
      (mode === 'heuristic' ? [undefined] : models).map((model) => {
        const parts: string[] = [mode];
        if (choice.tables.length > 1) parts.push(tableNames.get(table) ?? table);
        if (choice.models.length > 1 && model !== undefined) parts.push(modelNames.get(model) ?? model);
        return { label: parts.join(' · '), mode, table, model };
      }),
    ),
  );
}
