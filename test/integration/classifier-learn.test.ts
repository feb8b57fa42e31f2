import { loadShippedClassifier } from '../helpers/shipped-classifier.js';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trafficRecordSchema } from '../../src/classify/traffic-record.js';
import { systemClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createTrafficLearning, type TrafficLearning } from '../../src/traffic-learning.js';
import { createJsonlFolder } from '../helpers/jsonl-folder.js';
import { postChat, startStack, type Stack } from '../helpers/start-stack.js';
import { TIER_FLEET_BACKENDS, tierFleetTable } from '../helpers/tier-fleet.js';

const folder = createJsonlFolder('autotier-learn-');
const recordsPath = folder.path('learn.jsonl');

describe('classifier.learn through the service', () => {
  let stack: Stack;
  let learning: TrafficLearning;
  beforeAll(async () => {
    const shipped = await loadShippedClassifier();
    learning = createTrafficLearning({ clock: systemClock, logger: silentLogger, redisUrl: undefined });
    stack = await startStack({
      backends: TIER_FLEET_BACKENDS,
      classifier: (loaded) => {
        const onLlmDecision = learning.hookFor(loaded, shipped.model);
        return shipped.forTable(loaded, onLlmDecision === undefined ? {} : { onLlmDecision });
      },
      table: (urls) =>
        // threshold 1: every auto request asks the LLM (and is recorded)
        tierFleetTable(urls, {
          mode: 'cascade',
          deployment: 'classifier',
          gate: 'confidence',
          threshold: 1,
          deadline_ms: 2000,
          cache: { max_entries: 0 },
          learn: { enabled: true, to: 'file', path: recordsPath, max_records: 2, flush_ms: 3_600_000 },
        }),
    });
    stack.sim('classifier').setResponder(() => ({
      content: JSON.stringify({ complexity: 'COMPLEX', reason: 'scripted', needs_vision: false }),
    }));
  });
  afterAll(() => stack.close());

  it('records each LLM decision as hashed features and labels, never the text, capped at max_records', async () => {
    const texts = ['Refactor the Quimbyfrob service', 'Explain the zorblat lemma', 'Tell me about wobbleton'];
    for (const text of texts) {
      const response = await postChat(stack.url, {
        model: 'auto',
        messages: [{ role: 'user', content: text }],
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-autotier-classifier')).toBe('llm');
    }
    await learning.close();
    const current = readFileSync(recordsPath, 'utf8');
    const rotated = readFileSync(`${recordsPath}.1`, 'utf8');
    const lines = [...rotated.split('\n'), ...current.split('\n')].filter((line) => line !== '');
    expect(lines).toHaveLength(3);
    expect(rotated.split('\n').filter((line) => line !== '')).toHaveLength(2);
    for (const line of lines) {
      expect(trafficRecordSchema.parse(JSON.parse(line))).toMatchObject({ llm: 'COMPLEX' });
      for (const word of ['Quimbyfrob', 'zorblat', 'wobbleton', 'Refactor', 'lemma'])
        expect(line).not.toContain(word);
    }
  });
});
