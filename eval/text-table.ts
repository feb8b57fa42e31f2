import { padToWidth, toDisplayWidth } from './display-width.js';

/** `0.6123` -> `61.2%`. */
export function formatPercent(fraction: number, digits = 1): string {
  return `${(100 * fraction).toFixed(digits)}%`;
}

/** Milliseconds with precision that suits their size: `0.041`, `3.20`, `412`. */
export function formatMs(milliseconds: number): string {
  if (milliseconds >= 100) return milliseconds.toFixed(0);
  return milliseconds >= 1 ? milliseconds.toFixed(2) : milliseconds.toFixed(3);
}

export interface TableLayout {
  /** Indexes of left-aligned (text) columns; the rest are right-aligned numbers. @default [0] */
  left?: readonly number[];
}

/** Pads rows into aligned columns, two spaces apart. Rows may be ragged; missing cells count as empty. */
export function formatTable(rows: readonly (readonly string[])[], layout: TableLayout = {}): string[] {
  const left = new Set(layout.left ?? [0]);
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, toDisplayWidth(cell));
    });
  }
  return rows.map((row) =>
    row
      .map((cell, index) => {
        const width = widths[index] ?? 0;
        return padToWidth(cell, width, left.has(index) ? 'end' : 'start');
      })
      .join('  ')
      .trimEnd(),
  );
}

/** Places text blocks next to each other, `gap` spaces apart. */
export function joinBlocks(blocks: readonly (readonly string[])[], gap = 4): string[] {
  const height = Math.max(0, ...blocks.map((block) => block.length));
  const widths = blocks.map((block) => Math.max(0, ...block.map(toDisplayWidth)));
  return Array.from({ length: height }, (_, row) =>
    blocks
      .map((block, index) => padToWidth(block[row] ?? '', widths[index] ?? 0, 'end'))
      .join(' '.repeat(gap))
      .trimEnd(),
  );
}
