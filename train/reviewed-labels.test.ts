import { describe, expect, it } from 'vitest';
import { createLocalClassifier } from '../src/classify/local-classifier.js';
import { toTarget } from './label-targets.js';
import { readLabeledExamples, type LabeledExample } from './labeled-example.js';
import { createJsonlFolder } from '../test/helpers/jsonl-folder.js';
import { trainToyModel } from './toy-model.js';
import { DEFAULT_TRAINING_CONFIG } from './model-fitting.js';
import { applyReviewedLabels, compareReviewedLabels, readReviewedLabels } from './reviewed-labels.js';

const { writeLines } = createJsonlFolder('autotier-reviewed-');

/** Weak lines: `zork` prompts are SIMPLE, and `frob` prompts are wrongly mapped to SIMPLE too. */
function weakFile(): string {
  const lines = Array.from({ length: 40 }, (_, index) => ({
    id: `w${index}`,
    prompt: `${index % 2 === 0 ? 'zork' : 'frob'} lorem ipsum ${index % 5}`,
    label: 'SIMPLE',
    source: 'toy',
  }));
  return writeLines('weak.jsonl', lines);
}

describe('reviewed labels', () => {
  it('reads id and label per line and rejects a bad tier or a repeated id with file and line', () => {
    const good = writeLines('good.jsonl', [
      { id: 'w1', label: 'EXPERT' },
      { id: 'w2', label: 'MODERATE', note: 'kept' },
    ]);
    expect([...readReviewedLabels(good)]).toEqual([
      ['w1', 'EXPERT'],
      ['w2', 'MODERATE'],
    ]);
    const badTier = writeLines('bad-tier.jsonl', [
      { id: 'w1', label: 'EXPERT' },
      { id: 'w2', label: 'HARD' },
    ]);
    expect(() => readReviewedLabels(badTier)).toThrow(/bad-tier\.jsonl:2/);
    const twice = writeLines('twice.jsonl', [
      { id: 'w1', label: 'EXPERT' },
      { id: 'w1', label: 'SIMPLE' },
    ]);
    expect(() => readReviewedLabels(twice)).toThrow(/twice\.jsonl:2: id w1 is listed twice/);
  });

  it('relabels weak examples only, and counts changes and ids that matched nothing', () => {
    const gold = writeLines('gold.jsonl', [
      { id: 'g1', prompt: 'hi', label: 'SIMPLE', acceptable: ['SIMPLE'] },
    ]);
    const examples = [...readLabeledExamples(weakFile()), ...readLabeledExamples(gold)];
    const reviewed = new Map([
      ['w1', 'EXPERT'],
      ['w2', 'SIMPLE'],
      ['g1', 'EXPERT'],
      ['missing', 'COMPLEX'],
    ] as const);
    const result = applyReviewedLabels(examples, reviewed);
    expect(result.applied).toBe(2);
    expect(result.changed).toBe(1);
    expect(result.unmatched).toEqual(['g1', 'missing']);
    const byId = new Map(result.examples.map((example) => [example.id, example]));
    expect(byId.get('w1')).toMatchObject({ label: 'EXPERT', acceptable: ['EXPERT'], reviewed: true });
    expect(byId.get('w3')).toMatchObject({ label: 'SIMPLE', reviewed: false });
    expect(byId.get('g1')).toMatchObject({ label: 'SIMPLE', gold: true, reviewed: false });
  });

  it('targets a reviewed label with its share and spreads the rest to the neighbouring tiers', () => {
    const [weak] = readLabeledExamples(weakFile());
    if (weak === undefined) throw new Error('no example');
    const options = { ...DEFAULT_TRAINING_CONFIG, reviewedLabelShare: 0.8 };
    const reviewed = (label: LabeledExample['label']): LabeledExample => ({ ...weak, label, reviewed: true });
    const rounded = (label: LabeledExample['label']): number[] =>
      toTarget(reviewed(label), options).map((share) => Number(share.toFixed(6)));
    expect(rounded('SIMPLE')).toEqual([0.8, 0.2, 0, 0]);
    expect(rounded('COMPLEX')).toEqual([0, 0.1, 0.8, 0.1]);
    expect(rounded('EXPERT')).toEqual([0, 0, 0.2, 0.8]);
  });

  it('trains on the reviewed tier instead of the weak one', () => {
    const config = { ...DEFAULT_TRAINING_CONFIG, hashBits: 12, useSignals: false, epochs: 15 };
    const frobTier = (examples: LabeledExample[]): string => {
      const classifier = createLocalClassifier({ mode: 'learned', model: trainToyModel(examples, config) });
      return classifier.classifyLocal({ messages: [{ role: 'user', content: 'frob dolor sit' }] }).tier;
    };
    const weak = readLabeledExamples(weakFile());
    expect(frobTier(weak)).toBe('SIMPLE');
    const fixes = weak
      // odd ids are the `frob` prompts (weakFile)
      .filter((example) => Number(example.id.slice(1)) % 2 === 1)
      .map((example) => ({ id: example.id, label: 'EXPERT' }));
    const reviewed = readReviewedLabels(writeLines('fixes.jsonl', fixes));
    expect(frobTier(applyReviewedLabels(weak, reviewed).examples)).toBe('EXPERT');
  });

  it('measures agreement with the labels of the listed examples, by direction and tier', () => {
    const examples = readLabeledExamples(weakFile()).slice(0, 4);
    const agreement = compareReviewedLabels(
      examples,
      new Map([
        ['w0', 'SIMPLE'],
        ['w1', 'EXPERT'],
        ['w2', 'MODERATE'],
        ['other', 'SIMPLE'],
      ] as const),
    );
    expect(agreement).toMatchObject({ count: 3, agree: 1, lower: 0, higher: 2 });
    expect(agreement.confusion[0]).toEqual([1, 1, 0, 1]);
    expect(
      agreement.confusion
        .slice(1)
        .flat()
        .every((count) => count === 0),
    ).toBe(true);
  });

  it('reads labeled lines marked `reviewed` as training-only examples, never gold', () => {
    const file = writeLines('written.jsonl', [
      {
        id: 'r1',
        prompt: 'prove that sqrt 2 is irrational',
        label: 'EXPERT',
        reviewed: true,
        source: 'ours',
      },
      { id: 'r2', prompt: 'hi', label: 'SIMPLE' },
    ]);
    const [reviewed, weak] = readLabeledExamples(file);
    expect(reviewed).toMatchObject({ id: 'r1', reviewed: true, gold: false, label: 'EXPERT' });
    expect(weak).toMatchObject({ id: 'r2', reviewed: false, gold: false });
    const both = writeLines('both.jsonl', [
      { id: 'r3', prompt: 'hi', label: 'SIMPLE', reviewed: true, acceptable: ['SIMPLE'] },
    ]);
    expect(() => readLabeledExamples(both)).toThrow(/both\.jsonl:1:[\s\S]*cannot carry gold `acceptable`/);
  });
});
