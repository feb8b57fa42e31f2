import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { hashId } from './random.js';
import type { LabeledExample } from './labeled-example.js';

/**
 * What `npm run train` reads with no arguments (STYLE.md 17): the shared datasets beside the
 * repository, the training data in data/, and never eval/prompts.jsonl, the set the eval and the CI
 * floor score as unseen. Paths are relative to the project root.
 */
export const DEFAULT_TRAINING_FILES: readonly string[] = Object.freeze([
  '../shared/datasets/train-weak.jsonl',
  '../shared/datasets/dev.jsonl',
  'data/written-train.jsonl',
]);
/** Reviewed tiers for train-weak's prompts (`--reviewed`). */
export const DEFAULT_REVIEWED_FILES: readonly string[] = Object.freeze(['data/reviewed-weak-labels.jsonl']);
/** The shipped model, which `npm run train` writes and `--check` compares against. */
export const DEFAULT_MODEL_FILE = 'src/classify/model/local-model.json';
/** The labeled eval set: scored, never trained on (the trainer refuses any file under eval/). */
export const EVAL_FILE = 'eval/prompts.jsonl';
/**
 * Share of the gold examples (dev's) never trained on, chosen by a hash of the id so the split does not
 * depend on the seed or on the file order. @default 0.2
 */
export const DEFAULT_HELD_OUT_SHARE = 0.2;

/** Gold examples in the fixed held-out share: `hashId(id) % 1000 < share * 1000`. */
export function isHeldOut(example: LabeledExample, share: number): boolean {
  return example.gold && hashId(example.id) % 1000 < share * 1000;
}

/** One input file as the model's metadata records it. */
export interface InputRecord {
  /** Relative to the project root, `/`-separated. */
  path: string;
  /** Hex SHA-256 of the file's bytes. */
  sha256: string;
  use: 'examples' | 'reviewed labels';
}

export function toSha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** How the shared datasets are named in the model's metadata, wherever they are read from. */
const RECORDED_DATASETS = '../shared/datasets/';

/** The shared datasets folder when it is not beside the project (`AUTOTIER_DATASETS`), else undefined. */
function datasetsOverride(): string | undefined {
  return process.env['AUTOTIER_DATASETS'];
}

/**
 * `file` (absolute or relative to the working directory) relative to `root`, `/`-separated; a file of
 * the `AUTOTIER_DATASETS` folder is named `../shared/datasets/<name>`, so the record does not depend on
 * where a checkout sits.
 */
export function toProjectPath(file: string, root: string): string {
  const override = datasetsOverride();
  const inDatasets = override === undefined ? undefined : relative(resolve(override), resolve(file));
  if (inDatasets !== undefined && !inDatasets.startsWith('..') && !isAbsolute(inDatasets))
    return `${RECORDED_DATASETS}${inDatasets.split('\\').join('/')}`;
  return relative(root, resolve(file)).split('\\').join('/');
}

/** A recorded path as a file to read: `../shared/datasets/…` from `AUTOTIER_DATASETS` when it is set. */
export function toReadablePath(path: string, root: string): string {
  const override = datasetsOverride();
  if (override !== undefined && path.startsWith(RECORDED_DATASETS))
    return join(override, path.slice(RECORDED_DATASETS.length));
  return isAbsolute(path) ? path : join(root, path);
}

export function toInputRecord(file: string, options: { root: string; use: InputRecord['use'] }): InputRecord {
  return { path: toProjectPath(file, options.root), sha256: toSha256(resolve(file)), use: options.use };
}

/** Throws when a training file lies in eval/: that folder holds the scored set, never training data. */
export function assertNotEvalFile(file: string, root: string): void {
  const path = toProjectPath(file, root);
  if (path === 'eval' || path.startsWith('eval/'))
    throw new Error(
      `${path}: eval/ holds the labeled eval set, which the model never trains on; score it with npm run eval or --holdout`,
    );
}
