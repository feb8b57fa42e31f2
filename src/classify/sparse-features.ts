import type { FeatureLayout, FeatureSource } from './model-features.js';
import { encodeFeatures } from './model-features.js';

/** A request's model features as sorted rows and their values (the trainer's CSR row for it). */
export interface SparseFeatures {
  rows: number[];
  values: number[];
}

/**
 * The features `encodeFeatures` sends, duplicates summed and n-grams scaled by 1/sqrt(count), as the
 * learned classifier and the trainer (`toFeatureMatrix`) scale them; rows sorted, zeros dropped.
 */
export function toSparseFeatures(source: FeatureSource, layout: FeatureLayout): SparseFeatures {
  const textCounts = new Map<number, number>();
  const dense = new Map<number, number>();
  const count = encodeFeatures(source, layout, {
    addText: (row) => textCounts.set(row, (textCounts.get(row) ?? 0) + 1),
    add: (row, value) => dense.set(row, (dense.get(row) ?? 0) + value),
  });
  const scale = count > 0 ? 1 / Math.sqrt(count) : 0;
  for (const [row, times] of textCounts) dense.set(row, (dense.get(row) ?? 0) + times * scale);
  const rows: number[] = [];
  const values: number[] = [];
  for (const [row, value] of [...dense.entries()].sort((a, b) => a[0] - b[0])) {
    if (value === 0) continue;
    rows.push(row);
    values.push(value);
  }
  return { rows, values };
}
