import type { ClassifyInput } from './classify-input.js';
import { forEachTextFeature } from './text-features.js';
import type { TextProfile } from './text-profile.js';

/** Numbers the model reads besides n-grams and signals; each is scaled to roughly 0..2. */
export const NUMERIC_FEATURES = [
  'log_length',
  'log_words',
  'log_lines',
  'digit_share',
  'code_share',
  'math_share',
  'cjk_share',
  'log_turns',
  'log_conversation',
  'log_system',
  'ends_with_question',
] as const;

/** What the model file says about its inputs. */
export interface FeatureSpec {
  /** log2 of the number of hashed n-gram rows. */
  hashBits: number;
  /** Heuristic signal names with a row each, in row order; empty for an n-gram-only model. */
  signals: readonly string[];
  numeric: readonly string[];
}

/** Rows of the weight matrix: hashed n-grams, then one per signal, then one per number. */
export interface FeatureLayout {
  hashMask: number;
  signalRows: ReadonlyMap<string, number>;
  numericOffset: number;
  rows: number;
}

export function toFeatureLayout(spec: FeatureSpec): FeatureLayout {
  const hashRows = 2 ** spec.hashBits;
  const signalRows = new Map(spec.signals.map((name, index) => [name, hashRows + index]));
  const numericOffset = hashRows + spec.signals.length;
  return { hashMask: hashRows - 1, signalRows, numericOffset, rows: numericOffset + spec.numeric.length };
}

/**
 * Where features go. `addText` receives hashed n-gram rows whose value is 1/sqrt(n-gram count), which
 * the sink applies once the count is known; `add` receives a row with its final value.
 */
export interface FeatureSink {
  addText(row: number): void;
  add(row: number, value: number): void;
}

export interface FeatureSource {
  input: ClassifyInput;
  profile: TextProfile;
  /** Fired heuristic signals; ignored by a model whose spec lists no signals. */
  signals: readonly string[];
}

/** Sends every feature of one request to `sink`; returns the n-gram count. */
export function encodeFeatures(source: FeatureSource, layout: FeatureLayout, sink: FeatureSink): number {
  const { hashMask } = layout;
  const count = forEachTextFeature(source.input.lowerText, (hash) => sink.addText(hash & hashMask));
  for (const name of source.signals) {
    const row = layout.signalRows.get(name);
    if (row !== undefined) sink.add(row, 1);
  }
  const numbers = toNumericFeatures(source.input, source.profile);
  for (let index = 0; index < numbers.length; index += 1)
    sink.add(layout.numericOffset + index, numbers[index] ?? 0);
  return count;
}

/** Values in the order of NUMERIC_FEATURES. */
export function toNumericFeatures(input: ClassifyInput, profile: TextProfile): number[] {
  const length = Math.max(1, input.text.length);
  return [
    Math.log1p(input.textLength) / 8,
    Math.log1p(profile.words) / 6,
    Math.log1p(profile.lines) / 4,
    (4 * profile.digits) / length,
    (8 * profile.codeSymbols) / length,
    (16 * profile.mathSymbols) / length,
    (profile.hangul + profile.han + profile.kana) / length,
    Math.log1p(input.turns) / 3,
    Math.log1p(input.conversationLength) / 10,
    Math.log1p(input.systemLength) / 10,
    /[?？]\s*$/.test(input.text) ? 1 : 0,
  ];
}
