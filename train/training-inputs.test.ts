import { describe, expect, it } from 'vitest';
import { createJsonlFolder } from '../test/helpers/jsonl-folder.js';
import { toLabeledExample } from './labeled-example.js';
import { hashId } from './random.js';
import {
  assertNotEvalFile,
  DEFAULT_REVIEWED_FILES,
  DEFAULT_TRAINING_FILES,
  EVAL_FILE,
  isHeldOut,
  toInputRecord,
  toProjectPath,
} from './training-inputs.js';

const folder = createJsonlFolder('training-inputs-');

describe('training inputs', () => {
  it('never name a file under eval/ among the defaults', () => {
    for (const file of [...DEFAULT_TRAINING_FILES, ...DEFAULT_REVIEWED_FILES])
      expect(file.startsWith('eval/')).toBe(false);
  });

  it('refuse the eval set as training data however its path is spelled', () => {
    expect(() => assertNotEvalFile(EVAL_FILE, process.cwd())).toThrow(/eval\/ holds the labeled eval set/);
    const root = '/project';
    for (const file of ['/project/eval/prompts.jsonl', '/project/data/../eval/other.jsonl'])
      expect(() => assertNotEvalFile(file, root), file).toThrow(/eval\/ holds the labeled eval set/);
    expect(() => assertNotEvalFile('/project/data/written-train.jsonl', root)).not.toThrow();
    expect(() => assertNotEvalFile('/project/evaluation.jsonl', root)).not.toThrow();
  });

  it('hold out gold examples only, by a hash of the id', () => {
    const gold = (id: string) =>
      toLabeledExample({ id, prompt: 'p', label: 'SIMPLE', acceptable: ['SIMPLE'] }, 'f', 1);
    const ids = Array.from({ length: 1000 }, (_, index) => `d${index}`);
    const heldOut = ids.filter((id) => isHeldOut(gold(id), 0.2));
    expect(heldOut).toEqual(ids.filter((id) => hashId(id) % 1000 < 200));
    expect(heldOut.length).toBeGreaterThan(150);
    expect(heldOut.length).toBeLessThan(250);
    const weak = toLabeledExample({ id: heldOut[0], prompt: 'p', label: 'SIMPLE' }, 'f', 1);
    expect(isHeldOut(weak, 0.2)).toBe(false);
  });

  it('record a path relative to the project root with the SHA-256 of its bytes', () => {
    const file = folder.writeLines('a.jsonl', [{ id: 'x' }]);
    const root = folder.path('..');
    const record = toInputRecord(file, { root, use: 'examples' });
    expect(record.path).toBe(toProjectPath(file, root));
    expect(record.path.startsWith('/')).toBe(false);
    // `printf '{"id":"x"}\n' | sha256sum`
    expect(record.sha256).toBe('551dd78288bd82f529e1697be1f74b91d5ae2278319f014218a93b2a997ca0f7');
  });
});
