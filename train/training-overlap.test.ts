import { describe, expect, it } from 'vitest';
import { toMessageText } from '../src/shared/chat.js';
import { readLabeledExamples, type LabeledExample } from './labeled-example.js';
import { createOverlapIndex, type OverlapMatch, type OverlapText } from './text-overlap.js';
import { PROJECT_ROOT } from '../src/project-paths.js';
import {
  DEFAULT_HELD_OUT_SHARE,
  DEFAULT_TRAINING_FILES,
  EVAL_FILE,
  isHeldOut,
  toReadablePath,
} from './training-inputs.js';

/** Every message's text: a prompt scored as unseen must not be in the training data in any turn. */
const toOverlapText = (example: LabeledExample): OverlapText => ({
  id: example.id,
  text: example.request.messages.map((message) => toMessageText(message.content)).join('\n'),
});

const findIn = (scored: readonly LabeledExample[], training: readonly LabeledExample[]): OverlapMatch[] => {
  const index = createOverlapIndex(scored.map(toOverlapText));
  return training.flatMap((example) => index.find(toOverlapText(example)));
};

const trainingSets = DEFAULT_TRAINING_FILES.map((file) => ({
  file,
  examples: readLabeledExamples(toReadablePath(file, PROJECT_ROOT)),
}));
const isDevHeldOut = (example: LabeledExample): boolean => isHeldOut(example, DEFAULT_HELD_OUT_SHARE);

/**
 * The sets the accuracy numbers are measured on share no text with what `npm run train` reads: exact
 * duplicates after normalization and near duplicates (text-overlap.ts), not just ids.
 */
describe('training data against the sets scored as unseen', () => {
  it.each(trainingSets)(`$file repeats no prompt of ${EVAL_FILE}, exactly or nearly`, ({ examples }) => {
    expect(findIn(readLabeledExamples(EVAL_FILE), examples)).toEqual([]);
  });

  it("no trained example repeats a prompt of dev's held-out share", () => {
    const all = trainingSets.flatMap(({ examples }) => examples);
    const heldOut = all.filter(isDevHeldOut);
    expect(heldOut.length).toBeGreaterThan(100);
    expect(
      findIn(
        heldOut,
        all.filter((example) => !isDevHeldOut(example)),
      ),
    ).toEqual([]);
  });
});
