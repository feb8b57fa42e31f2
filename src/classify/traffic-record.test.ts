import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL_PATH } from '../project-paths.js';
import { toClassifyInput } from './classify-input.js';
import { createLearnedClassifier } from './learned-classifier.js';
import { createLocalClassifier } from './local-classifier.js';
import { loadLocalModel } from './local-model.js';
import { toTextProfile } from './text-profile.js';
import { toSpecFingerprint, toTrafficRecord, trafficRecordSchema } from './traffic-record.js';

const model = loadLocalModel(DEFAULT_MODEL_PATH);
const local = createLocalClassifier({ mode: 'local', model });
const PROMPT =
  'Please explain the zyxwvutsrq frobnicator of my neighbour Alice Quimby in detail, with a proof.';

function recordOf(text: string) {
  const input = toClassifyInput({ messages: [{ role: 'user', content: text }] });
  const event = {
    input,
    local: local.classifyInput(input),
    verdict: { complexity: 'EXPERT' as const, reason: `the user ${text}`, needsVision: false },
  };
  return { input, event, record: toTrafficRecord(event, model, 1234) };
}

describe('a classifier.learn traffic record', () => {
  it('holds no text of the request or of the LLM reason, only hashed rows, numbers and tiers', () => {
    const { record } = recordOf(PROMPT);
    const json = JSON.stringify(record);
    for (const word of ['zyxwv', 'frobnicator', 'Quimby', 'Alice', 'explain', 'neighbour', 'proof'])
      expect(json).not.toContain(word);
    expect(Object.keys(record).sort()).toEqual(
      ['format', 'llm', 'local', 'probabilities', 'rows', 'spec', 'time', 'values'].sort(),
    );
    expect(trafficRecordSchema.parse(JSON.parse(json))).toEqual(record);
    expect(record).toMatchObject({ llm: 'EXPERT', time: 1234, spec: toSpecFingerprint(model.spec) });
  });

  it('carries the features the model scored: its logits come back from the rows and values', () => {
    const { input, event, record } = recordOf(PROMPT);
    const logits = createLearnedClassifier({ model }).toLogits({
      input,
      profile: toTextProfile(input.lowerText),
      signals: event.local.signals,
    });
    const fromRecord = [0, 1, 2, 3].map(
      (tier) =>
        (model.bias[tier] ?? 0) +
        record.rows.reduce(
          (sum, row, index) => sum + (record.values[index] ?? 0) * (model.weights[row * 4 + tier] ?? 0),
          0,
        ),
    );
    fromRecord.forEach((value, tier) => expect(value).toBeCloseTo(logits[tier] ?? 0, 3));
    expect(record.rows).toEqual([...record.rows].sort((a, b) => a - b));
  });
});
