import type { EvalReport } from './eval-report.js';
import { escapeHtml } from './escape-html.js';
import { toRoutingStacks, toTierBarsLegend, toTierBarsSvg } from './html-bars.js';
import { toHeatmapLegend, toHeatmapSvg } from './html-heatmap.js';
import {
  toBreakdownTables,
  toComparisonTable,
  toLatencyTable,
  toMalformedList,
  toMisrouteTable,
  toRulesSection,
  toSummaryCards,
} from './html-sections.js';
import { REPORT_CSS } from './html-style.js';

function toRunSection(report: EvalReport): string {
  const model = report.model === null ? '' : ` · model ${escapeHtml(report.model)}`;
  return `<section class="run" data-label="${escapeHtml(report.label)}">
<h2>${escapeHtml(report.label)}</h2>
<p class="subtitle">mode ${report.mode} · table ${escapeHtml(report.table)}${model} · ${report.n} cases scored of ${report.lines} lines</p>
${toMalformedList(report)}
${toSummaryCards(report)}
<div class="panels">
<div class="panel"><h3>Confusion matrix</h3>${toHeatmapSvg(report.confusion)}${toHeatmapLegend()}</div>
<div class="panel"><h3>Per-tier precision, recall, F1</h3>${toTierBarsSvg(report.per_tier)}${toTierBarsLegend()}</div>
<div class="panel"><h3>Routing by gold tier</h3>${toRoutingStacks(report.per_tier)}<div class="legend"><span class="legend-item"><span class="swatch stack-under"></span>under-routed</span><span class="legend-item"><span class="swatch stack-correct"></span>correct</span><span class="legend-item"><span class="swatch stack-over"></span>over-routed</span></div></div>
<div class="panel"><h3>Latency</h3>${toLatencyTable(report)}</div>
</div>
${toRulesSection(report)}
<h3 style="margin-top:20px">Breakdowns</h3>
<div class="breakdowns">${toBreakdownTables(report) || '<p class="note">The file has no source, lang or kind fields.</p>'}</div>
<h3 style="margin-top:20px">Worst misroutes (largest tier distance, under-routes first)</h3>
${toMisrouteTable(report)}
</section>`;
}

/** The `--html` page: self-contained (inline CSS and SVG, no script, no network). */
export function toHtmlReport(reports: readonly EvalReport[]): string {
  const file = reports[0]?.file ?? '';
  const comparison =
    reports.length > 1
      ? `<div class="panel wide"><h3>Comparison</h3>${toComparisonTable(reports)}</div>`
      : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>autotier eval · ${escapeHtml(file)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<main>
<h1>autotier classifier eval</h1>
<p class="subtitle">${escapeHtml(file)} · ${reports.map((report) => escapeHtml(report.label)).join(' vs ')}</p>
${comparison}
${reports.map(toRunSection).join('\n')}
</main>
</body>
</html>
`;
}
