import { FACETS } from './eval-case.js';
import type { EvalReport } from './eval-report.js';
import { QUALITY_ROWS, type MetricRow } from './headline-metrics.js';
import { escapeHtml } from './escape-html.js';
import { STAGES, type LatencySummary } from './latency-summary.js';
import { formatMs, formatPercent } from './text-table.js';

type Cell = string | number;

/** A table from already-escaped cells; `numeric` columns are right-aligned. */
export function toHtmlTable(
  head: readonly string[],
  rows: readonly (readonly Cell[])[],
  className = '',
): string {
  const header = head.map((cell) => `<th>${cell}</th>`).join('');
  const body = rows.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join('')}</tr>`).join('');
  return `<table class="${className}"><thead><tr>${header}</tr></thead><tbody>${body}</tbody></table>`;
}

export function toSummaryCards(report: EvalReport): string {
  const card = (label: string, value: string, tone = ''): string =>
    `<div class="card ${tone}"><div class="card-value">${value}</div><div class="card-label">${label}</div></div>`;
  return `<div class="cards">${[
    card('exact accuracy', formatPercent(report.accuracy)),
    card('acceptable-tier accuracy', formatPercent(report.acceptable_accuracy)),
    card('macro-F1', report.macro_f1.toFixed(3)),
    card('under-routing (quality risk)', formatPercent(report.under_routing_rate), 'tone-under'),
    card('over-routing (cost)', formatPercent(report.over_routing_rate), 'tone-over'),
    card('needed the LLM', formatPercent(report.llm_call_rate)),
    card(
      `cost vs all-EXPERT (gold ${formatPercent(report.cost.gold_relative_to_expert)})`,
      formatPercent(report.cost.relative_to_expert),
    ),
  ].join('')}</div>`;
}

export function toLatencyTable(report: EvalReport): string {
  const row = (name: string, summary: LatencySummary): Cell[] => [
    name,
    summary.n,
    formatMs(summary.p50),
    formatMs(summary.p95),
    formatMs(summary.p99),
  ];
  const stages = STAGES.filter((stage) => report.latency_ms.stages[stage].n > 0).map((stage) =>
    row(`${stage} stage`, report.latency_ms.stages[stage]),
  );
  const causes = Object.entries(report.causes)
    .filter(([, count]) => count > 0)
    .map(([cause, count]) => `${cause} ${count}`)
    .join(', ');
  return `${toHtmlTable(['latency (ms)', 'n', 'p50', 'p95', 'p99'], [row('whole call', report.latency_ms), ...stages], 'numeric')}<p class="note">decided by: ${causes || 'nothing'}</p>`;
}

export function toBreakdownTables(report: EvalReport): string {
  return FACETS.flatMap((facet) => {
    const groups = report.breakdowns[facet];
    if (groups === undefined) return [];
    const rows = groups.map((group) => [
      escapeHtml(group.value),
      group.n,
      formatPercent(group.accuracy),
      formatPercent(group.acceptable_accuracy),
      formatPercent(group.under_routing_rate),
      formatPercent(group.over_routing_rate),
    ]);
    const head = [`by ${facet}`, 'n', 'exact', 'acceptable', 'under', 'over'];
    return [`<div class="breakdown">${toHtmlTable(head, rows, 'numeric')}</div>`];
  }).join('');
}

export function toMisrouteTable(report: EvalReport): string {
  if (report.worst_misroutes.length === 0) return '<p class="note">No misroutes.</p>';
  const rows = report.worst_misroutes.map((miss) => [
    `${escapeHtml(miss.id)}<br><span class="muted">line ${miss.line}</span>`,
    `<span class="tier">${miss.gold}</span> → <span class="tier">${miss.predicted}</span>`,
    `<span class="badge badge-${miss.direction}">${miss.direction} ${miss.distance}</span>`,
    miss.rules.length === 0
      ? `${miss.cause}<br><span class="muted">p=${miss.confidence.toFixed(2)}</span>`
      : `rule ${escapeHtml(miss.rules.join(', '))}`,
    miss.signals.map((signal) => `<code>${escapeHtml(signal)}</code>`).join(' ') ||
      '<span class="muted">none</span>',
    `<span class="excerpt">${escapeHtml(miss.excerpt)}</span>`,
  ]);
  return toHtmlTable(['case', 'gold → predicted', 'miss', 'cause', 'signals', 'prompt'], rows, 'misroutes');
}

/** The routing table's rules: accuracy without and with them, and each rule's matches; '' without rules. */
export function toRulesSection(report: EvalReport): string {
  const { rules } = report;
  if (rules === null) return '';
  const { without_rules: without } = rules;
  const quality = toHtmlTable(
    ['', 'exact', 'acceptable', 'under', 'over'],
    [
      [
        'without rules',
        ...[
          without.accuracy,
          without.acceptable_accuracy,
          without.under_routing_rate,
          without.over_routing_rate,
        ].map(formatPercent),
      ],
      [
        'with rules',
        ...[
          report.accuracy,
          report.acceptable_accuracy,
          report.under_routing_rate,
          report.over_routing_rate,
        ].map(formatPercent),
      ],
    ],
    'numeric',
  );
  const perRule = toHtmlTable(
    ['rule', 'tier', 'matched', 'changed'],
    rules.rules.map((rule) => [
      escapeHtml(rule.name),
      rule.kind === 'tier' ? rule.tier : `&ge; ${rule.tier}`,
      rule.fired,
      rule.changed,
    ]),
    'numeric',
  );
  return `<h3 style="margin-top:20px">Table rules</h3>
<p class="note">${rules.count} rules matched ${rules.cases_fired} of ${report.n} cases and changed the tier of ${rules.cases_changed} (${rules.cases_exact} set exactly: no classifier call in the service).</p>
<div class="breakdowns"><div class="breakdown">${quality}</div><div class="breakdown">${perRule}</div></div>`;
}

export function toMalformedList(report: EvalReport): string {
  if (report.malformed.length === 0) return '';
  const items = report.malformed.map(
    (problem) => `<li>line ${problem.line}: ${escapeHtml(problem.message)}</li>`,
  );
  return `<details class="malformed" open><summary>${report.malformed.length} malformed line(s), skipped</summary><ul>${items.join('')}</ul></details>`;
}

/** One row per metric, one column per run. */
export function toComparisonTable(reports: readonly EvalReport[]): string {
  const rows: MetricRow[] = [
    ...QUALITY_ROWS,
    ['latency p95 (ms)', (report) => formatMs(report.latency_ms.p95)],
  ];
  const head = ['', ...reports.map((report) => escapeHtml(report.label))];
  return toHtmlTable(
    head,
    rows.map(([name, read]) => [name, ...reports.map(read)]),
    'numeric comparison',
  );
}
