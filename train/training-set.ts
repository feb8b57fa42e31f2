import { toClassifyInput, type ClassifyInput } from '../src/classify/classify-input.js';
import { scoreHeuristics, type HeuristicResult } from '../src/classify/heuristics.js';
import type { FeatureLayout } from '../src/classify/model-features.js';
import { toSparseFeatures } from '../src/classify/sparse-features.js';
import type { LabeledExample } from './labeled-example.js';

/** Sparse feature rows of many examples in CSR form: example i owns entries offsets[i]..offsets[i+1]. */
export interface FeatureMatrix {
  offsets: Int32Array;
  rows: Int32Array;
  values: Float32Array;
}

/** An example with what every mode needs: its heuristic result and its model features. */
export interface EncodedExample {
  example: LabeledExample;
  input: ClassifyInput;
  heuristic: HeuristicResult;
}

export function toEncodedExamples(examples: readonly LabeledExample[]): EncodedExample[] {
  return examples.map((example) => {
    const input = toClassifyInput(example.request);
    return { example, input, heuristic: scoreHeuristics(input) };
  });
}

/**
 * Features of each example (`toSparseFeatures`: duplicates summed, n-grams scaled by 1/sqrt(count) as the
 * learned classifier scales them). With `useSignals` false the signal rows stay empty (the n-gram ablation).
 */
export function toFeatureMatrix(
  encoded: readonly EncodedExample[],
  layout: FeatureLayout,
  useSignals: boolean,
): FeatureMatrix {
  const offsets = new Int32Array(encoded.length + 1);
  const rows: number[] = [];
  const values: number[] = [];
  encoded.forEach(({ input, heuristic }, index) => {
    const source = { input, profile: heuristic.profile, signals: useSignals ? heuristic.signals : [] };
    const features = toSparseFeatures(source, layout);
    for (let entry = 0; entry < features.rows.length; entry += 1) {
      rows.push(features.rows[entry] ?? 0);
      values.push(features.values[entry] ?? 0);
    }
    offsets[index + 1] = rows.length;
  });
  return { offsets, rows: Int32Array.from(rows), values: Float32Array.from(values) };
}

/** The rows of `matrix` listed in `indices`, in that order. */
export function selectRows(matrix: FeatureMatrix, indices: readonly number[]): FeatureMatrix {
  const offsets = new Int32Array(indices.length + 1);
  let total = 0;
  indices.forEach((index, position) => {
    total += (matrix.offsets[index + 1] ?? 0) - (matrix.offsets[index] ?? 0);
    offsets[position + 1] = total;
  });
  const rows = new Int32Array(total);
  const values = new Float32Array(total);
  indices.forEach((index, position) => {
    const start = matrix.offsets[index] ?? 0;
    const end = matrix.offsets[index + 1] ?? 0;
    rows.set(matrix.rows.subarray(start, end), offsets[position] ?? 0);
    values.set(matrix.values.subarray(start, end), offsets[position] ?? 0);
  });
  return { offsets, rows, values };
}
