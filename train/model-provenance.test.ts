import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEFAULT_MODEL_PATH, PROJECT_ROOT } from '../src/project-paths.js';
import {
  DEFAULT_REVIEWED_FILES,
  DEFAULT_TRAINING_FILES,
  EVAL_FILE,
  toReadablePath,
  toSha256,
} from './training-inputs.js';

const provenanceSchema = z.looseObject({
  metadata: z.looseObject({
    reproduce: z.object({
      command: z.string(),
      seed: z.number(),
      inputs: z.array(
        z.object({ path: z.string(), sha256: z.string(), use: z.enum(['examples', 'reviewed labels']) }),
      ),
    }),
  }),
});

const { reproduce } = provenanceSchema.parse(JSON.parse(readFileSync(DEFAULT_MODEL_PATH, 'utf8'))).metadata;

/**
 * The shipped model says how to make it again (STYLE.md 17), and says it truly: editing a training
 * file without retraining fails here. `npm run train -- --check` retrains and compares every byte.
 */
describe('the shipped model records how to reproduce it', () => {
  it('was trained by `npm run train` with no arguments on the default inputs, never on the eval set', () => {
    expect(reproduce.command).toBe('npm run train');
    expect(reproduce.seed).toBe(1);
    expect(reproduce.inputs.map((input) => input.path)).toEqual([
      ...DEFAULT_TRAINING_FILES,
      ...DEFAULT_REVIEWED_FILES,
    ]);
    expect(reproduce.inputs.map((input) => input.path)).not.toContain(EVAL_FILE);
  });

  it.each(reproduce.inputs)('$path still has the SHA-256 the model recorded', ({ path, sha256 }) => {
    expect(toSha256(toReadablePath(path, PROJECT_ROOT))).toBe(sha256);
  });
});
