import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TIERS, type Tier } from '../../shared/tier.js';
import { createLocalClassifier } from '../local-classifier.js';
import { parseLocalModel, toLocalModelJson } from '../local-model.js';
import { readLabeledExamples } from './labeled-example.js';
import { DEFAULT_TRAINING_CONFIG, fitWeights, prepareData, toLocalModel } from './model-fitting.js';
import { createSeededRandom } from './random.js';

/** A made-up word decides the tier; the rest is filler the model must learn to ignore. */
const MARKERS: Record<Tier, string> = { SIMPLE: 'zork', MODERATE: 'blip', COMPLEX: 'quux', EXPERT: 'frob' };
const FILLER = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'tempor', 'magna', 'aliqua', 'veniam', 'nostrud'];

function toyPrompt(tier: Tier, random: () => number): string {
  const words = Array.from({ length: 6 }, () => FILLER[Math.floor(random() * FILLER.length)] ?? 'lorem');
  words.splice(Math.floor(random() * words.length), 0, MARKERS[tier]);
  return words.join(' ');
}

const directory = mkdtempSync(join(tmpdir(), 'autotier-train-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('softmax trainer', () => {
  it('learns a separable toy problem from a labeled JSONL file', () => {
    const random = createSeededRandom(7);
    const lines = TIERS.flatMap((tier) =>
      Array.from({ length: 30 }, (_, index) =>
        JSON.stringify({
          id: `${tier}-${index}`,
          prompt: toyPrompt(tier, random),
          label: tier,
          acceptable: [tier],
        }),
      ),
    );
    const file = join(directory, 'toy.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const examples = readLabeledExamples(file);
    const config = { ...DEFAULT_TRAINING_CONFIG, hashBits: 12, useSignals: false, epochs: 15 };
    const data = prepareData(examples, config);
    const weights = fitWeights(
      data,
      examples.map((_, index) => index),
      config,
    );
    const trained = toLocalModel(data, weights, {
      temperature: 1,
      decision: { underPenalty: 0 },
      metadata: {},
    });
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
    const file = join(directory, 'bad.jsonl');
    writeFileSync(file, '{"label":"SIMPLE","prompt":"hi"}\n{"label":"SIMPLE"}\n');
    expect(() => readLabeledExamples(file)).toThrow(/bad\.jsonl:2/);
  });
});
