import { TIERS } from '../src/shared/tier.js';
import type { EvalReport } from './eval-report.js';

/** Chart geometry in SVG user units (pixels). */
const PLOT = { left: 48, top: 16, width: 440, height: 200, bottom: 44 };
const SERIES = [
  { key: 'precision', label: 'precision', color: '#4c78a8' },
  { key: 'recall', label: 'recall', color: '#f58518' },
  { key: 'f1', label: 'F1', color: '#54a24b' },
] as const;

function toGrid(): string {
  return [0, 0.25, 0.5, 0.75, 1]
    .map((value) => {
      const y = PLOT.top + PLOT.height * (1 - value);
      return `<line class="grid" x1="${PLOT.left}" x2="${PLOT.left + PLOT.width}" y1="${y}" y2="${y}"/><text class="tick" x="${PLOT.left - 6}" y="${y + 4}" text-anchor="end">${value * 100}%</text>`;
    })
    .join('');
}

/** Precision, recall and F1 of each tier as grouped bars, 0..100%. */
export function toTierBarsSvg(perTier: EvalReport['per_tier']): string {
  const groupWidth = PLOT.width / TIERS.length;
  const barWidth = (groupWidth - 24) / SERIES.length;
  const bars = TIERS.flatMap((tier, tierIndex) => {
    const groupLeft = PLOT.left + tierIndex * groupWidth + 12;
    const center = groupLeft + (groupWidth - 24) / 2;
    const bottom = PLOT.top + PLOT.height;
    const label = `<text class="tick" x="${center}" y="${bottom + 18}" text-anchor="middle">${tier}</text><text class="tick muted-tick" x="${center}" y="${bottom + 34}" text-anchor="middle">n=${perTier[tier].support}</text>`;
    const rects = SERIES.map((series, index) => {
      const value = perTier[tier][series.key];
      const height = Math.max(0, PLOT.height * value);
      const x = groupLeft + index * barWidth;
      const y = PLOT.top + PLOT.height - height;
      return `<g><title>${tier} ${series.label}: ${(100 * value).toFixed(1)}%</title><rect class="bar bar-${series.key}" data-tier="${tier}" x="${x}" y="${y}" width="${barWidth - 3}" height="${height}" fill="${series.color}"/><text class="bar-value" x="${x + (barWidth - 3) / 2}" y="${y - 4}" text-anchor="middle">${Math.round(100 * value)}</text></g>`;
    });
    return [label, ...rects];
  });
  const width = PLOT.left + PLOT.width + 8;
  const height = PLOT.top + PLOT.height + PLOT.bottom;
  return `<svg class="tier-bars" role="img" aria-label="per-tier precision, recall and F1" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">${toGrid()}${bars.join('')}</svg>`;
}

export function toTierBarsLegend(): string {
  const items = SERIES.map(
    (series) =>
      `<span class="legend-item"><span class="swatch" style="background:${series.color}"></span>${series.label}</span>`,
  );
  return `<div class="legend bars-legend">${items.join('')}<span class="legend-note">bar labels in %</span></div>`;
}

/** Per gold tier, one stacked bar: under-routed, correct, over-routed shares (HTML, no SVG needed). */
export function toRoutingStacks(perTier: EvalReport['per_tier']): string {
  const rows = TIERS.map((tier) => {
    const { under_routing_rate: under, over_routing_rate: over, support } = perTier[tier];
    const segment = (kind: string, share: number): string =>
      `<span class="stack-${kind}" style="width:${(100 * share).toFixed(2)}%" title="${kind} ${(100 * share).toFixed(1)}%">${share >= 0.08 ? `${Math.round(100 * share)}%` : ''}</span>`;
    const correct = support === 0 ? 0 : Math.max(0, 1 - under - over);
    return `<div class="stack-row"><span class="stack-label">${tier}</span><span class="stack">${segment('under', under)}${segment('correct', correct)}${segment('over', over)}</span><span class="stack-n">n=${support}</span></div>`;
  });
  return `<div class="stacks">${rows.join('')}</div>`;
}
