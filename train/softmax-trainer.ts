import type { FeatureMatrix } from './training-set.js';
import { createSeededRandom, toShuffledIndices } from './random.js';

export interface SoftmaxTrainingData {
  features: FeatureMatrix;
  /** Soft targets, four per example (SIMPLE..EXPERT), each row summing to 1. */
  targets: Float32Array;
  /** Weight of each example in the loss (gold examples weigh more than weak ones). */
  sampleWeights: Float32Array;
}

export interface SoftmaxTrainingOptions {
  /** Feature rows of the weight matrix. */
  rows: number;
  /** Passes over the data. @default 10 */
  epochs: number;
  /** AdaGrad base step. @default 0.2 */
  learningRate: number;
  /** L2 strength, applied to a row each time an example touches it. @default 1e-4 */
  l2: number;
  seed: number;
}

export interface SoftmaxWeights {
  /** rows x 4, row-major. */
  weights: Float32Array;
  bias: number[];
}

/**
 * Multinomial logistic regression by AdaGrad SGD with soft targets and sample weights. Plain
 * SGD keeps a run over 12k examples and 2^18 hashed rows to about a second per epoch.
 */
export function trainSoftmax(data: SoftmaxTrainingData, options: SoftmaxTrainingOptions): SoftmaxWeights {
  const weights = new Float32Array(options.rows * 4);
  const squares = new Float32Array(options.rows * 4);
  const bias = new Float64Array(4);
  const biasSquares = new Float64Array(4);
  const random = createSeededRandom(options.seed);
  const count = data.features.offsets.length - 1;
  const logits = new Float64Array(4);
  const errors = new Float64Array(4);
  for (let epoch = 0; epoch < options.epochs; epoch += 1) {
    for (const index of toShuffledIndices(count, random)) {
      const start = data.features.offsets[index] ?? 0;
      const end = data.features.offsets[index + 1] ?? 0;
      forward(data.features, { start, end, weights, bias, logits });
      toErrors(logits, { targets: data.targets, index, weight: data.sampleWeights[index] ?? 1, errors });
      for (let position = start; position < end; position += 1) {
        const row = data.features.rows[position] ?? 0;
        const value = data.features.values[position] ?? 0;
        for (let tier = 0; tier < 4; tier += 1) {
          const cell = row * 4 + tier;
          const current = weights[cell] ?? 0;
          const gradient = (errors[tier] ?? 0) * value + options.l2 * current;
          squares[cell] = (squares[cell] ?? 0) + gradient * gradient;
          weights[cell] =
            current - (options.learningRate * gradient) / (Math.sqrt(squares[cell] ?? 0) + 1e-6);
        }
      }
      for (let tier = 0; tier < 4; tier += 1) {
        const gradient = errors[tier] ?? 0;
        biasSquares[tier] = (biasSquares[tier] ?? 0) + gradient * gradient;
        bias[tier] =
          (bias[tier] ?? 0) - (options.learningRate * gradient) / (Math.sqrt(biasSquares[tier] ?? 0) + 1e-6);
      }
    }
  }
  return { weights, bias: Array.from(bias) };
}

interface ForwardState {
  start: number;
  end: number;
  weights: Float32Array;
  bias: Float64Array;
  logits: Float64Array;
}

function forward(features: FeatureMatrix, { start, end, weights, bias, logits }: ForwardState): void {
  logits.set(bias);
  for (let position = start; position < end; position += 1) {
    const base = (features.rows[position] ?? 0) * 4;
    const value = features.values[position] ?? 0;
    for (let tier = 0; tier < 4; tier += 1)
      logits[tier] = (logits[tier] ?? 0) + value * (weights[base + tier] ?? 0);
  }
}

interface ErrorState {
  targets: Float32Array;
  index: number;
  weight: number;
  errors: Float64Array;
}

/** errors = weight * (softmax(logits) - target). */
function toErrors(logits: Float64Array, { targets, index, weight, errors }: ErrorState): void {
  const max = Math.max(...logits);
  let total = 0;
  for (let tier = 0; tier < 4; tier += 1) {
    errors[tier] = Math.exp((logits[tier] ?? 0) - max);
    total += errors[tier] ?? 0;
  }
  for (let tier = 0; tier < 4; tier += 1) {
    errors[tier] = weight * ((errors[tier] ?? 0) / total - (targets[index * 4 + tier] ?? 0));
  }
}
