import type { EvalReport } from './eval-report.js';
import { formatPercent } from './text-table.js';

/** A labeled figure of a report, formatted for a table cell. */
export type MetricRow = [string, (report: EvalReport) => string];

/** The quality and cost figures every comparison shows, terminal and HTML alike. */
export const QUALITY_ROWS: readonly MetricRow[] = [
  ['exact accuracy', (report) => formatPercent(report.accuracy)],
  ['acceptable-tier accuracy', (report) => formatPercent(report.acceptable_accuracy)],
  ['macro-F1', (report) => report.macro_f1.toFixed(3)],
  ['under-routing', (report) => formatPercent(report.under_routing_rate)],
  ['over-routing', (report) => formatPercent(report.over_routing_rate)],
  ['needed the LLM', (report) => formatPercent(report.llm_call_rate)],
  ['cost vs all-EXPERT', (report) => formatPercent(report.cost.relative_to_expert)],
];
