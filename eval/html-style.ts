/** The report's whole stylesheet, inlined: the page must work offline and from a CI artifact. */
export const REPORT_CSS = `
:root { --ink: #1f2933; --muted: #6b7785; --line: #e3e8ee; --under: hsl(4 62% 48%); --over: hsl(212 62% 45%); --good: hsl(145 50% 38%); }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans CJK SC", sans-serif; color: var(--ink); background: #f5f7fa; }
main { max-width: 1200px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 32px 0 12px; padding-top: 16px; border-top: 2px solid var(--line); }
h3 { font-size: 14px; margin: 0 0 10px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.subtitle, .note, .muted { color: var(--muted); }
.note { margin: 6px 0 0; font-size: 13px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 10px; margin: 12px 0 18px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; }
.card-value { font-size: 24px; font-weight: 650; }
.card-label { color: var(--muted); font-size: 12px; }
.tone-under .card-value { color: var(--under); }
.tone-over .card-value { color: var(--over); }
.panels { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
.panel { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; }
.panel.wide { flex: 1 1 100%; }
svg text { font-family: inherit; fill: var(--ink); }
svg .tick { font-size: 12px; fill: #3e4c59; }
svg .axis-title { font-size: 13px; font-weight: 600; }
svg .cell-count { font-size: 17px; font-weight: 650; }
svg .cell-share { font-size: 11px; }
svg .grid { stroke: var(--line); }
svg .muted-tick { fill: var(--muted); font-size: 11px; }
svg .bar-value { font-size: 10px; fill: #3e4c59; }
.legend { display: flex; flex-wrap: wrap; gap: 14px; align-items: center; font-size: 12px; margin-top: 8px; }
.legend-item { display: inline-flex; align-items: center; gap: 6px; }
.legend-note { color: var(--muted); }
.panel .legend { max-width: 500px; }
.swatch { width: 14px; height: 14px; border-radius: 3px; display: inline-block; }
.stacks { display: grid; gap: 8px; min-width: 420px; }
.stack-row { display: grid; grid-template-columns: 80px 1fr 56px; gap: 8px; align-items: center; font-size: 12px; }
.stack { display: flex; height: 22px; border-radius: 4px; overflow: hidden; background: var(--line); }
.stack span { display: flex; align-items: center; justify-content: center; color: #fff; font-size: 11px; }
.stack-under { background: var(--under); } .stack-correct { background: var(--good); } .stack-over { background: var(--over); }
.stack-n { color: var(--muted); }
table { border-collapse: collapse; background: #fff; font-size: 13px; }
th, td { padding: 5px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: #eef2f6; font-weight: 600; }
table.numeric td:not(:first-child), table.numeric th:not(:first-child) { text-align: right; font-variant-numeric: tabular-nums; }
.breakdowns { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
table.misroutes { width: 100%; }
table.misroutes .excerpt { display: block; max-width: 460px; color: #3e4c59; }
code { font-size: 11px; background: #eef2f6; padding: 1px 4px; border-radius: 3px; white-space: nowrap; }
.tier { font-weight: 600; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; color: #fff; font-size: 12px; white-space: nowrap; }
.badge-under { background: var(--under); } .badge-over { background: var(--over); }
.malformed { margin: 8px 0; color: var(--under); }
`;
