import { TIERS } from '../src/shared/tier.js';
import { FACETS, type Facet } from './eval-case.js';
import type { EvalReport } from './eval-report.js';
import { QUALITY_ROWS, type MetricRow } from './headline-metrics.js';
import { formatMs, formatPercent, formatTable, joinBlocks } from './text-table.js';

type Row = MetricRow;

const HEADLINE_ROWS: Row[] = [
  ['cases', (report) => String(report.n)],
  ...QUALITY_ROWS,
  [
    'exact without table rules',
    (report) => (report.rules === null ? '-' : formatPercent(report.rules.without_rules.accuracy)),
  ],
  ['latency p50 ms', (report) => formatMs(report.latency_ms.p50)],
  ['latency p95 ms', (report) => formatMs(report.latency_ms.p95)],
  ['latency p99 ms', (report) => formatMs(report.latency_ms.p99)],
];

const TIER_ROWS: Row[] = TIERS.flatMap((tier): Row[] => [
  [`${tier} F1`, (report) => report.per_tier[tier].f1.toFixed(3)],
  [`${tier} under / over`, (report) => toUnderOver(report, tier)],
]);

function toUnderOver(report: EvalReport, tier: (typeof TIERS)[number]): string {
  const scores = report.per_tier[tier];
  return `${formatPercent(scores.under_routing_rate)} / ${formatPercent(scores.over_routing_rate)}`;
}

function toFacetRows(reports: readonly EvalReport[], facet: Facet): string[][] {
  const values = reports[0]?.breakdowns[facet]?.map((group) => group.value) ?? [];
  return values.map((value) => [
    `${value} (${reports[0]?.breakdowns[facet]?.find((group) => group.value === value)?.n ?? 0})`,
    ...reports.map((report) => {
      const group = report.breakdowns[facet]?.find((candidate) => candidate.value === value);
      return group === undefined ? '-' : formatPercent(group.accuracy);
    }),
  ]);
}

function toMatrix(report: EvalReport): string[] {
  const short = (tier: string): string => tier.slice(0, 3);
  const rows = TIERS.map((gold) => [
    short(gold),
    ...TIERS.map((predicted) => String(report.confusion[gold][predicted])),
  ]);
  return [report.label, ...formatTable([['gold\\pred', ...TIERS.map(short)], ...rows])];
}

/** Several runs on the same file, one column each; then their confusion matrices side by side. */
export function formatComparison(reports: readonly EvalReport[]): string {
  const first = reports[0];
  if (first === undefined) return 'nothing to compare';
  const head = ['', ...reports.map((report) => report.label)];
  const toRows = (rows: readonly Row[]): string[][] =>
    rows.map(([name, read]) => [name, ...reports.map(read)]);
  const facets = FACETS.flatMap((facet) => {
    const rows = toFacetRows(reports, facet);
    return rows.length === 0 ? [] : ['', ...formatTable([[`exact by ${facet}`, ...head.slice(1)], ...rows])];
  });
  return [
    `autotier eval · ${first.file} · ${first.n} cases scored (${first.lines} lines read, ${first.malformed.length} malformed and skipped)`,
    '',
    ...formatTable([head, ...toRows(HEADLINE_ROWS), ...toRows(TIER_ROWS)]),
    ...facets,
    '',
    ...joinBlocks(reports.map(toMatrix)),
  ].join('\n');
}
