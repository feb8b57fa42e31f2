import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createLocalClassifier } from '../../src/classify/local-classifier.js';
import { parseLocalModel } from '../../src/classify/local-model.js';
import { parseRoutingTable } from '../../src/config/load-routing-table.js';
import { silentLogger } from '../../src/shared/logger.js';
import { systemClock } from '../../src/shared/clock.js';
import { createEvalClassifier, type EvalClassifierOptions } from '../../eval/create-eval-classifier.js';
import { toEvalTable } from '../../eval/eval-table.js';
import { toConstantModelJson } from './constant-model.js';

const loaded = toEvalTable({
  loaded: parseRoutingTable({
    text: readFileSync('routing-tables/default.yaml', 'utf8'),
    source: 'default.yaml',
    now: 0,
  }),
  mode: 'local',
  now: 0,
});
const model = parseLocalModel(toConstantModelJson([0, 1, 0, 0]));
const base: EvalClassifierOptions = {
  mode: 'local',
  loaded,
  model,
  promptTemplate: '',
  readSecret: () => undefined,
  clock: systemClock,
  logger: silentLogger,
};
const requests = ['hello there', 'prove that sqrt 2 is irrational', 'what should I cook tonight'].map(
  (content) => ({
    messages: [{ role: 'user', content }],
  }),
);

describe('createEvalClassifier', () => {
  it("decides local mode through the service's table classifier, as the local classifier would", async () => {
    const classifier = createEvalClassifier(base);
    const reference = createLocalClassifier({ mode: 'local', model });
    for (const request of requests) {
      const decision = await classifier.classify(request);
      expect(decision.tier).toBe(reference.classifyLocal(request).tier);
      expect(decision.llmCalled).toBe(false);
    }
  });

  it('runs heuristic mode without a model and learned mode from the model alone', async () => {
    const heuristic = await createEvalClassifier({ ...base, mode: 'heuristic', model: undefined }).classify(
      requests[0]!,
    );
    expect(heuristic.cause).toBe('heuristic');
    const learned = await createEvalClassifier({ ...base, mode: 'learned' }).classify(requests[0]!);
    expect(learned).toMatchObject({ tier: 'MODERATE', cause: 'learned' });
  });

  it('needs a model in the other modes', () => {
    expect(() => createEvalClassifier({ ...base, mode: 'learned', model: undefined })).toThrow(
      /needs a learned model/,
    );
  });
});
