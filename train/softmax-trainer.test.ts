import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TIERS, type Tier } from '../src/shared/tier.js';
import { createLocalClassifier } from '../src/classify/local-classifier.js';
import { parseLocalModel, toLocalModelJson } from '../src/classify/local-model.js';
import { readLabeledExamples, type LabeledExample } from './labeled-example.js';
import { createJsonlFolder } from '../test/helpers/jsonl-folder.js';
import { trainToyModel } from './toy-model.js';
import {
  averageWeights,
  DEFAULT_TRAINING_CONFIG,
  fitWeights,
  prepareData,
  RESTART_SEED_STEP,
} from './model-fitting.js';
import { createSeededRandom } from './random.js';

/** A made-up word decides the tier; the rest is filler the model must learn to ignore. */
const MARKERS: Record<Tier, string> = { SIMPLE: 'zork', MODERATE: 'blip', COMPLEX: 'quux', EXPERT: 'frob' };
const FILLER = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'tempor', 'magna', 'aliqua', 'veniam', 'nostrud'];

function toyPrompt(tier: Tier, random: () => number): string {
  const words = Array.from({ length: 6 }, () => FILLER[Math.floor(random() * FILLER.length)] ?? 'lorem');
  words.splice(Math.floor(random() * words.length), 0, MARKERS[tier]);
  return words.join(' ');
}

const folder = createJsonlFolder('autotier-train-');

/** Writes `perTier` gold toy lines of every tier to `name` and reads them back as labeled examples. */
function readToyExamples(name: string, perTier: number, seed: number): LabeledExample[] {
  const random = createSeededRandom(seed);
  const lines = TIERS.flatMap((tier) =>
    Array.from({ length: perTier }, (_, index) => ({
      id: `${tier}-${index}`,
      prompt: toyPrompt(tier, random),
      label: tier,
      acceptable: [tier],
    })),
  );
  return readLabeledExamples(folder.writeLines(name, lines));
}

describe('softmax trainer', () => {
  it('learns a separable toy problem from a labeled JSONL file', () => {
    const examples = readToyExamples('toy.jsonl', 30, 7);
    const config = { ...DEFAULT_TRAINING_CONFIG, hashBits: 12, useSignals: false, epochs: 15 };
    const trained = trainToyModel(examples, config);
    const model = parseLocalModel(JSON.parse(JSON.stringify(toLocalModelJson(trained, 0))) as unknown);
    const classifier = createLocalClassifier({ mode: 'learned', model });
    const fresh = createSeededRandom(99);
    for (const tier of TIERS) {
      for (let trial = 0; trial < 5; trial += 1) {
        const prompt = toyPrompt(tier, fresh);
        expect(classifier.classifyLocal({ messages: [{ role: 'user', content: prompt }] }).tier, prompt).toBe(
          tier,
        );
      }
    }
  });

  it('rejects a labeled line without a prompt or messages, naming the file and line', () => {
    const file = folder.path('bad.jsonl');
    writeFileSync(file, '{"label":"SIMPLE","prompt":"hi"}\n{"label":"SIMPLE"}\n');
    expect(() => readLabeledExamples(file)).toThrow(/bad\.jsonl:2/);
  });

  it('averages the weights and biases of several runs, and returns a single run as it is', () => {
    const one = { weights: Float32Array.from([1, 2, 3, 4]), bias: [0, 1, 2, 3] };
    const two = { weights: Float32Array.from([3, 2, 1, 0]), bias: [2, 1, 0, -1] };
    expect(averageWeights([one])).toBe(one);
    const mean = averageWeights([one, two]);
    expect(Array.from(mean.weights)).toEqual([2, 2, 2, 2]);
    expect(mean.bias).toEqual([1, 1, 1, 1]);
    expect(Array.from(one.weights)).toEqual([1, 2, 3, 4]);
    expect(() => averageWeights([])).toThrow(/at least one run/);
  });

  it('with restarts, fits the mean of the runs from spread seeds', () => {
    const examples = readToyExamples('restarts.jsonl', 10, 3);
    const all = examples.map((_, index) => index);
    const base = { ...DEFAULT_TRAINING_CONFIG, hashBits: 10, useSignals: false, epochs: 3, restarts: 1 };
    const data = prepareData(examples, base);
    const runs = [0, 1, 2].map((run) =>
      fitWeights(data, all, { ...base, seed: 5 + RESTART_SEED_STEP * run }),
    );
    const averaged = fitWeights(data, all, { ...base, seed: 5, restarts: 3 });
    const expected = averageWeights(runs);
    expect(Array.from(averaged.weights)).toEqual(Array.from(expected.weights));
    expect(averaged.bias).toEqual(expected.bias);
    expect(Array.from(averaged.weights)).not.toEqual(Array.from(runs[0]?.weights ?? []));
  });
});
