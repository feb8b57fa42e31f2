import { TIERS } from '../src/shared/tier.js';
import { truncateToWidth } from './display-width.js';
import { FACETS } from './eval-case.js';
import type { EvalReport } from './eval-report.js';
import { STAGES, type LatencySummary } from './latency-summary.js';
import { formatMs, formatPercent, formatTable } from './text-table.js';

/** Misroutes printed on the terminal; the JSON and HTML reports keep more. */
const TERMINAL_MISROUTES = 10;
/** Malformed lines listed one by one before the rest are summarized. */
const LISTED_MALFORMED = 20;

export function formatHeader(report: EvalReport): string[] {
  const model = report.model === null ? '' : ` · model ${report.model}`;
  const lines = [
    `autotier eval · ${report.file} · mode ${report.mode} · table ${report.table}${model}`,
    `${report.n} cases scored (${report.lines} lines read, ${report.malformed.length} malformed and skipped)`,
  ];
  for (const problem of report.malformed.slice(0, LISTED_MALFORMED)) {
    lines.push(`  line ${problem.line}: ${problem.message}`);
  }
  if (report.malformed.length > LISTED_MALFORMED) {
    lines.push(`  ... and ${report.malformed.length - LISTED_MALFORMED} more`);
  }
  return lines;
}

export function formatSummary(report: EvalReport): string[] {
  return formatTable([
    ['exact accuracy', formatPercent(report.accuracy)],
    ['acceptable-tier accuracy', formatPercent(report.acceptable_accuracy)],
    ['macro-F1', report.macro_f1.toFixed(3)],
    ['under-routing (quality risk)', formatPercent(report.under_routing_rate)],
    ['over-routing (cost)', formatPercent(report.over_routing_rate)],
    ['needed the LLM', formatPercent(report.llm_call_rate)],
    [
      'cost vs all-EXPERT',
      formatPercent(report.cost.relative_to_expert),
      `(gold labels: ${formatPercent(report.cost.gold_relative_to_expert)})`,
    ],
  ]);
}

/** Confusion matrix with each gold tier's scores on the same row. */
export function formatTiers(report: EvalReport): string[] {
  const head = ['gold \\ predicted', ...TIERS, 'n', 'precision', 'recall', 'F1', 'under', 'over'];
  const rows = TIERS.map((gold) => {
    const tier = report.per_tier[gold];
    return [
      gold,
      ...TIERS.map((predicted) => String(report.confusion[gold][predicted])),
      String(tier.support),
      formatPercent(tier.precision),
      formatPercent(tier.recall),
      tier.f1.toFixed(3),
      formatPercent(tier.under_routing_rate),
      formatPercent(tier.over_routing_rate),
    ];
  });
  const predicted = ['predicted', ...TIERS.map((tier) => String(report.per_tier[tier].predicted))];
  return formatTable([head, ...rows, predicted]);
}

export function formatLatency(report: EvalReport): string[] {
  const row = (name: string, summary: LatencySummary): string[] => [
    name,
    String(summary.n),
    formatMs(summary.p50),
    formatMs(summary.p95),
    formatMs(summary.p99),
  ];
  const stages = STAGES.filter((stage) => report.latency_ms.stages[stage].n > 0).map((stage) =>
    row(stage, report.latency_ms.stages[stage]),
  );
  const causes = Object.entries(report.causes)
    .filter(([, count]) => count > 0)
    .map(([cause, count]) => `${cause} ${count}`);
  return [
    ...formatTable([
      ['latency ms', 'n', 'p50', 'p95', 'p99'],
      row('whole call', report.latency_ms),
      ...stages,
    ]),
    `decided by: ${causes.join(', ') || 'nothing'}`,
  ];
}

export function formatBreakdowns(report: EvalReport): string[] {
  return FACETS.flatMap((facet) => {
    const groups = report.breakdowns[facet];
    if (groups === undefined) return [];
    const rows = groups.map((group) => [
      group.value,
      String(group.n),
      formatPercent(group.accuracy),
      formatPercent(group.acceptable_accuracy),
      formatPercent(group.under_routing_rate),
      formatPercent(group.over_routing_rate),
    ]);
    return ['', ...formatTable([[`by ${facet}`, 'n', 'exact', 'acceptable', 'under', 'over'], ...rows])];
  });
}

export function formatMisroutes(report: EvalReport): string[] {
  const shown = report.worst_misroutes.slice(0, TERMINAL_MISROUTES);
  if (shown.length === 0) return ['no misroutes'];
  const rows = shown.map((miss) => [
    `${miss.id} (line ${miss.line})`,
    `${miss.gold} -> ${miss.predicted}`,
    `${miss.direction} ${miss.distance}`,
    miss.rules.length === 0 ? `${miss.cause} ${miss.confidence.toFixed(2)}` : `rule ${miss.rules.join(',')}`,
    miss.signals.slice(0, 4).join(',') || '-',
    truncateToWidth(miss.excerpt, 60),
  ]);
  const head = ['worst misroutes', 'gold -> predicted', 'miss', 'cause', 'signals', 'prompt'];
  return formatTable([head, ...rows], { left: [0, 1, 2, 3, 4, 5] });
}

/** What the routing table's rules did: accuracy without and with them, and each rule's count. */
export function formatRules(report: EvalReport): string[] {
  const { rules } = report;
  if (rules === null) return [];
  const { without_rules: without } = rules;
  const row = (name: string, figures: typeof without): string[] => [
    name,
    formatPercent(figures.accuracy),
    formatPercent(figures.acceptable_accuracy),
    formatPercent(figures.under_routing_rate),
    formatPercent(figures.over_routing_rate),
  ];
  const withRules = {
    accuracy: report.accuracy,
    acceptable_accuracy: report.acceptable_accuracy,
    under_routing_rate: report.under_routing_rate,
    over_routing_rate: report.over_routing_rate,
  };
  const effect = (kind: string, tier: string): string => (kind === 'tier' ? tier : `>= ${tier}`);
  return [
    '',
    `table rules: ${rules.count}, matched ${rules.cases_fired} of ${report.n} cases, changed the tier of ${rules.cases_changed} (${rules.cases_exact} set exactly, no classifier call in the service)`,
    ...formatTable([
      ['', 'exact', 'acceptable', 'under', 'over'],
      row('without rules', without),
      row('with rules', withRules),
    ]),
    ...formatTable(
      [
        ['rule', 'tier', 'matched', 'changed'],
        ...rules.rules.map((rule) => [
          rule.name,
          effect(rule.kind, rule.tier),
          String(rule.fired),
          String(rule.changed),
        ]),
      ],
      { left: [0, 1] },
    ),
  ];
}

/** The terminal report of one run. */
export function formatReport(report: EvalReport): string {
  return [
    ...formatHeader(report),
    '',
    ...formatSummary(report),
    '',
    ...formatTiers(report),
    '',
    ...formatLatency(report),
    ...formatRules(report),
    ...formatBreakdowns(report),
    '',
    ...formatMisroutes(report),
  ].join('\n');
}
