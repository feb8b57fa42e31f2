import { TIERS, toTierRank, type Tier } from '../src/shared/tier.js';
import { toGoldCount, type ConfusionMatrix } from './confusion-matrix.js';
import { toRate } from './scored-case.js';

/** Cell size and margins of the heatmap, in SVG user units (pixels). */
const CELL = { width: 96, height: 60 };
const MARGIN = { left: 120, top: 64 };

/** Hue per kind of cell: correct, under-routed (quality risk), over-routed (cost). */
export const HEATMAP_HUES = { correct: 145, under: 4, over: 212 } as const;

export type CellKind = keyof typeof HEATMAP_HUES;

export function toCellKind(gold: Tier, predicted: Tier): CellKind {
  const distance = toTierRank(predicted) - toTierRank(gold);
  return distance === 0 ? 'correct' : distance < 0 ? 'under' : 'over';
}

/** Lightness falls with the share of the gold row in the cell: an empty cell is near white. */
export function toCellColor(kind: CellKind, share: number): { fill: string; text: string } {
  const lightness = Math.round(97 - 55 * Math.min(1, Math.max(0, share)));
  return {
    fill: `hsl(${HEATMAP_HUES[kind]} 62% ${lightness}%)`,
    text: lightness < 62 ? '#ffffff' : '#1f2933',
  };
}

function toCell(matrix: ConfusionMatrix, gold: Tier, predicted: Tier): string {
  const count = matrix[gold][predicted];
  const share = toRate(count, toGoldCount(matrix, gold));
  const kind = toCellKind(gold, predicted);
  const color = toCellColor(kind, share);
  const x = MARGIN.left + toTierRank(predicted) * CELL.width;
  const y = MARGIN.top + toTierRank(gold) * CELL.height;
  const middle = x + CELL.width / 2;
  return [
    `<g class="cell-group"><title>gold ${gold}, predicted ${predicted}: ${count} (${(100 * share).toFixed(1)}% of gold ${gold}, ${kind})</title>`,
    `<rect class="cell cell-${kind}" data-gold="${gold}" data-predicted="${predicted}" x="${x}" y="${y}" width="${CELL.width - 2}" height="${CELL.height - 2}" rx="4" fill="${color.fill}"/>`,
    `<text x="${middle}" y="${y + 27}" text-anchor="middle" class="cell-count" fill="${color.text}">${count}</text>`,
    `<text x="${middle}" y="${y + 45}" text-anchor="middle" class="cell-share" fill="${color.text}">${(100 * share).toFixed(0)}%</text></g>`,
  ].join('');
}

function toAxes(): string {
  const width = TIERS.length * CELL.width;
  const height = TIERS.length * CELL.height;
  const columns = TIERS.map(
    (tier, index) =>
      `<text class="tick" x="${MARGIN.left + index * CELL.width + CELL.width / 2}" y="${MARGIN.top - 10}" text-anchor="middle">${tier}</text>`,
  );
  const rows = TIERS.map(
    (tier, index) =>
      `<text class="tick" x="${MARGIN.left - 10}" y="${MARGIN.top + index * CELL.height + CELL.height / 2 + 4}" text-anchor="end">${tier}</text>`,
  );
  const centerY = MARGIN.top + height / 2;
  return [
    `<text class="axis-title" x="${MARGIN.left + width / 2}" y="20" text-anchor="middle">predicted tier →</text>`,
    `<text class="axis-title" x="18" y="${centerY}" text-anchor="middle" transform="rotate(-90 18 ${centerY})">gold tier ↓</text>`,
    ...columns,
    ...rows,
  ].join('');
}

/** Confusion matrix as an SVG heatmap: rows gold, columns predicted, shade = share of the gold row. */
export function toHeatmapSvg(matrix: ConfusionMatrix): string {
  const width = MARGIN.left + TIERS.length * CELL.width + 8;
  const height = MARGIN.top + TIERS.length * CELL.height + 8;
  const cells = TIERS.flatMap((gold) => TIERS.map((predicted) => toCell(matrix, gold, predicted)));
  return `<svg class="heatmap" role="img" aria-label="confusion matrix heatmap" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">${toAxes()}${cells.join('')}</svg>`;
}

/** The heatmap's key: what each hue means and how shade reads. */
export function toHeatmapLegend(): string {
  const swatch = (kind: CellKind, text: string): string =>
    `<span class="legend-item"><span class="swatch" style="background:${toCellColor(kind, 0.75).fill}"></span>${text}</span>`;
  return `<div class="legend heatmap-legend">${swatch('correct', 'correct')}${swatch('under', 'under-routed (quality risk)')}${swatch('over', 'over-routed (cost)')}<span class="legend-note">darker = larger share of the gold row; cells show count and row %</span></div>`;
}
