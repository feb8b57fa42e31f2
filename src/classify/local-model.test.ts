import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { toClassifyInput } from './classify-input.js';
import { scoreHeuristics } from './heuristics.js';
import { createLearnedClassifier } from './learned-classifier.js';
import { loadLocalModel, parseLocalModel, toLocalModelJson, type LocalModel } from './local-model.js';
import { decodeRows, encodeRows } from './model-codec.js';
import { NUMERIC_FEATURES, toFeatureLayout } from './model-features.js';

const MODEL_PATH = fileURLToPath(new URL('./model/local-model.json', import.meta.url));

function tinyModel(): LocalModel {
  const spec = { hashBits: 8, signals: ['greeting'], numeric: NUMERIC_FEATURES };
  const layout = toFeatureLayout(spec);
  const weights = new Float32Array(layout.rows * 4);
  weights[3] = 0.5;
  weights[17] = -1.25;
  weights[layout.rows * 4 - 1] = 2;
  return {
    spec,
    layout,
    weights,
    bias: [0, 0.1, 0, -0.1],
    temperature: 1.5,
    decision: { underPenalty: 0.4 },
    blend: { weights: Array.from({ length: 32 }, (_, cell) => cell / 8 - 2), bias: [0.5, 0, 0, -0.5] },
    metadata: {},
  };
}

describe('local model file', () => {
  it('loads the committed model and gives probabilities that sum to 1', () => {
    const model = loadLocalModel(MODEL_PATH);
    const learned = createLearnedClassifier({ model });
    for (const text of [
      'hi',
      'Write a Rust function that merges two sorted vectors',
      '证明：存在无穷多个素数。',
    ]) {
      const input = toClassifyInput({ messages: [{ role: 'user', content: text }] });
      const heuristic = scoreHeuristics(input);
      const probabilities = learned.predict({
        input,
        profile: heuristic.profile,
        signals: heuristic.signals,
      });
      const total = Object.values(probabilities).reduce((sum, value) => sum + value, 0);
      expect(total).toBeCloseTo(1, 9);
      for (const value of Object.values(probabilities)) expect(value).toBeGreaterThan(0);
    }
  });

  it('survives a round trip through JSON within the quantization step', () => {
    const model = tinyModel();
    const json = toLocalModelJson(model, 0);
    const parsed = parseLocalModel(JSON.parse(JSON.stringify(json)) as unknown);
    expect(parsed.temperature).toBe(1.5);
    expect(parsed.decision).toEqual({ underPenalty: 0.4 });
    expect(parsed.blend).toEqual(model.blend);
    for (let index = 0; index < model.weights.length; index += 1) {
      expect(Math.abs((parsed.weights[index] ?? 0) - (model.weights[index] ?? 0))).toBeLessThanOrEqual(
        json.rows.step,
      );
    }
  });

  it('drops rows whose weights are all below the pruning threshold', () => {
    const encoded = encodeRows(tinyModel().weights, 1);
    expect(encoded.count).toBe(2);
    const dense = decodeRows(encoded, tinyModel().layout.rows);
    expect(dense[3]).toBe(0);
    expect(dense[17]).toBeCloseTo(-1.25, 3);
  });

  it('rejects a model built for other numeric features, naming the file', () => {
    const json = {
      ...toLocalModelJson(tinyModel(), 0),
      spec: { hashBits: 8, signals: [], numeric: ['log_length'] },
    };
    expect(() => parseLocalModel(json)).toThrow(/numeric features/);
    expect(() => loadLocalModel('/nonexistent/model.json')).toThrow(/\/nonexistent\/model\.json/);
  });
});
