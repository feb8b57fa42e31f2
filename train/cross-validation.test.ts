import { describe, expect, it } from 'vitest';
import { TIERS, type Tier } from '../src/shared/tier.js';
import { DEFAULT_DECISION } from '../src/classify/local-classifier.js';
import { crossValidate } from './cross-validation.js';
import { readLabeledExamples } from './labeled-example.js';
import { DEFAULT_TRAINING_CONFIG, prepareData } from './model-fitting.js';
import { createSeededRandom } from './random.js';
import { createJsonlFolder } from '../test/helpers/jsonl-folder.js';

const MARKERS: Record<Tier, string> = { SIMPLE: 'zork', MODERATE: 'blip', COMPLEX: 'quux', EXPERT: 'frob' };
const folder = createJsonlFolder('autotier-cv-');

/** Gold lines from two sources; `ours` prompts carry their tier's marker, `real` ones only sometimes. */
function goldFile(): string {
  const random = createSeededRandom(11);
  const lines = ['real', 'ours'].flatMap((source) =>
    TIERS.flatMap((tier) =>
      Array.from({ length: 12 }, (_, index) => {
        const marked = source === 'ours' || random() < 0.6;
        return {
          id: `${source}-${tier}-${index}`,
          prompt: `${marked ? MARKERS[tier] : 'lorem'} ipsum dolor ${index % 3}`,
          label: tier,
          acceptable: [tier],
          source,
        };
      }),
    ),
  );
  return folder.writeLines('gold.jsonl', lines);
}

describe('cross-validation', () => {
  const examples = readLabeledExamples(goldFile());
  const config = { ...DEFAULT_TRAINING_CONFIG, hashBits: 10, useSignals: false, epochs: 5, restarts: 1 };
  const data = prepareData(examples, config);
  const split = { weak: [], gold: examples.map((_, index) => index) };
  const run = (tuneOn?: (source: string) => boolean) =>
    crossValidate(data, split, {
      folds: 3,
      config,
      tuning: { maxUnder: 0.1, penalties: [0, 1, 2, 4] },
      heuristicPolicy: DEFAULT_DECISION,
      blend: false,
      tuneOn: tuneOn === undefined ? undefined : (example) => tuneOn(example.source),
      log: () => undefined,
    });

  it('tunes the decision on every gold example by default', () => {
    const report = run();
    expect(report.pooled.local.count).toBe(96);
    expect(report.tunedSubset).toBeUndefined();
    for (const { metrics } of report.candidates) expect(metrics.count).toBe(96);
  });

  it('tunes only on the examples `tuneOn` keeps, and scores that subset apart', () => {
    const report = run((source) => source === 'real');
    expect(report.pooled.local.count).toBe(96);
    expect(report.tunedSubset?.count).toBe(48);
    for (const { metrics } of report.candidates) expect(metrics.count).toBe(48);
    // the real prompts are the harder half: their out-of-fold accuracy is below the pooled one
    expect(report.tunedSubset?.metrics.learned.exact).toBeLessThan(report.pooled.learned.exact);
  });

  it('refuses to tune on an empty subset instead of falling back to the lowest penalty', () => {
    expect(() => run(() => false)).toThrow(/no gold example is left to tune the decision on/);
  });

  it('holds out whole sources when given groups, so a source-specific word no longer helps', () => {
    const words: Record<string, Record<Tier, string>> = {
      alpha: MARKERS,
      beta: { SIMPLE: 'wug', MODERATE: 'dax', COMPLEX: 'blicket', EXPERT: 'toma' },
    };
    const lines = Object.entries(words).flatMap(([source, marker]) =>
      TIERS.flatMap((tier) =>
        Array.from({ length: 12 }, (_, index) => ({
          id: `${source}-${tier}-${index}`,
          prompt: `${marker[tier]} ipsum ${index % 3}`,
          label: tier,
          acceptable: [tier],
          source,
        })),
      ),
    );
    const sourced = readLabeledExamples(folder.writeLines('sources.jsonl', lines));
    const sourcedData = prepareData(sourced, config);
    const gold = sourced.map((_, index) => index);
    const score = (groups: readonly string[] | undefined) =>
      crossValidate(
        sourcedData,
        { weak: [], gold },
        {
          folds: 2,
          config,
          tuning: { maxUnder: 1, penalties: [0] },
          heuristicPolicy: DEFAULT_DECISION,
          blend: false,
          groups,
          log: () => undefined,
        },
      ).pooled.learned.exact;
    expect(score(undefined)).toBeGreaterThan(0.9);
    expect(score(sourced.map((example) => example.source))).toBeLessThan(0.5);
  });
});
