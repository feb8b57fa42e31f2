import { describe, expect, it } from 'vitest';
import { readLabeledExamples } from './labeled-example.js';
import { readReviewedLabels } from './reviewed-labels.js';

/** The labeled files `npm run train` reads from the project (the datasets live outside it). */
describe('committed training files', () => {
  it('data/reviewed-weak-labels.jsonl: one reviewed tier per train-weak id, ids only', () => {
    const labels = readReviewedLabels('data/reviewed-weak-labels.jsonl');
    expect(labels.size).toBeGreaterThan(9000);
    for (const id of labels.keys()) expect(id).toMatch(/^w\d{5}$/);
  });

  it('data/reviewed-dev-controls.jsonl: dev ids, never a train-weak id', () => {
    const controls = readReviewedLabels('data/reviewed-dev-controls.jsonl');
    expect(controls.size).toBe(384);
    for (const id of controls.keys()) expect(id).toMatch(/^d\d{4}$/);
  });

  it('data/written-train.jsonl: training-only reviewed lines with ids no other file uses', () => {
    const written = readLabeledExamples('data/written-train.jsonl');
    expect(written.length).toBeGreaterThan(1800);
    expect(written.every((example) => example.reviewed && !example.gold)).toBe(true);
    expect(written.every((example) => example.source.startsWith('autotier-written-'))).toBe(true);
    const ids = new Set(written.map((example) => example.id));
    expect(ids.size).toBe(written.length);
    for (const example of readLabeledExamples('eval/prompts.jsonl')) expect(ids.has(example.id)).toBe(false);
  });
});
