import { loadRoutingTableFile } from './config/load-routing-table.js';
import { toRouterError } from './shared/errors.js';

export interface ValidationReport {
  ok: boolean;
  /** Lines to print: the errors with their key paths, or a summary and the warnings. */
  lines: string[];
}

/** `, 2 rules` after the classifier mode; nothing for a table without `classifier.rules`. */
function toRuleCount(count: number): string {
  if (count === 0) return '';
  return `, ${count} ${count === 1 ? 'rule' : 'rules'}`;
}

/** Checks a routing table file the way start-up and reloads do. */
export async function validateTableFile(path: string): Promise<ValidationReport> {
  try {
    const loaded = await loadRoutingTableFile(path, Date.now());
    const { table } = loaded;
    const summary = `${path}: valid (version ${loaded.version}, ${table.deployments.length} deployments, classifier ${table.classifier.mode}${toRuleCount(table.classifier.rules.length)})`;
    return { ok: true, lines: [summary, ...loaded.warnings.map((warning) => `warning: ${warning}`)] };
  } catch (error) {
    return { ok: false, lines: toRouterError(error).message.split('\n') };
  }
}
