import { LOCAL_MODEL_FORMAT, type LocalModelJson } from '../../src/classify/local-model.js';
import { NUMERIC_FEATURES } from '../../src/classify/model-features.js';

/**
 * A learned model with no weights: its probabilities are the softmax of `bias` (SIMPLE..EXPERT) for
 * every request, so tests control how sure the local stage is without the bundled model.
 */
export function toConstantModelJson(bias: [number, number, number, number]): LocalModelJson {
  return {
    format: LOCAL_MODEL_FORMAT,
    spec: { hashBits: 8, signals: [], numeric: [...NUMERIC_FEATURES] },
    bias,
    temperature: 1,
    decision: { underPenalty: 0 },
    rows: { count: 0, rows: '', weights: '', step: 1 },
    metadata: { purpose: 'eval tests' },
  };
}
