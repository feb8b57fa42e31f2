import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ContentPart } from '../shared/chat.js';
import type { ClassifyRequest } from './decision.js';
import { createLocalClassifier, isSureLocalDecision, type LocalMode } from './local-classifier.js';
import { loadLocalModel } from './local-model.js';

const model = loadLocalModel(fileURLToPath(new URL('./model/local-model.json', import.meta.url)));
const MODES: readonly LocalMode[] = ['heuristic', 'learned', 'local'];
const ask = (content: string | ContentPart[], system?: string): ClassifyRequest => ({
  messages: [
    ...(system === undefined ? [] : [{ role: 'system', content: system }]),
    { role: 'user', content },
  ],
});

/** About 3,000 words of IDE-plugin instructions, the kind Continue or Cursor send with every request. */
const IDE_SYSTEM_PROMPT = Array.from(
  { length: 120 },
  (_, index) =>
    `Rule ${index + 1}: You are an expert software engineer and architect inside the user's IDE. Always reason step by step, ` +
    'follow the repository conventions, never invent APIs, prefer minimal diffs and write production-ready TypeScript.',
).join('\n');

describe('createLocalClassifier', () => {
  it('does not send a trivial question to EXPERT because of a long IDE system prompt', () => {
    expect(IDE_SYSTEM_PROMPT.split(/\s+/).length).toBeGreaterThan(3000);
    for (const mode of MODES) {
      const result = createLocalClassifier({ mode, model }).classifyLocal(
        ask('what does git status do?', IDE_SYSTEM_PROMPT),
      );
      expect(result.tier, mode).not.toBe('EXPERT');
    }
  });

  it('sets needsVision exactly when the request carries image parts', () => {
    const classifier = createLocalClassifier({ mode: 'local', model });
    const image = { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } };
    expect(
      classifier.classifyLocal(ask([{ type: 'text', text: 'what breed is this?' }, image])).needsVision,
    ).toBe(true);
    expect(
      classifier.classifyLocal(ask([{ type: 'text', text: 'what breed is a beagle?' }])).needsVision,
    ).toBe(false);
  });

  it('routes a greeting to SIMPLE and a proof request to EXPERT in local mode', () => {
    const classifier = createLocalClassifier({ mode: 'local', model });
    expect(classifier.classifyLocal(ask('hi there!')).tier).toBe('SIMPLE');
    const proof = classifier.classifyLocal(ask('자연수 n에 대해 n^5 - n은 항상 30의 배수임을 증명하시오.'));
    expect(proof.tier).toBe('EXPERT');
    expect(proof.signals).toContain('proof_request');
  });

  it('reports probabilities that sum to 1, the confidence of the chosen tier and the deciding stage', () => {
    for (const mode of MODES) {
      const result = createLocalClassifier({ mode, model }).classifyLocal(
        ask('Write a SQL query for the top 5 customers'),
      );
      const total = Object.values(result.probabilities).reduce((sum, value) => sum + value, 0);
      expect(total).toBeCloseTo(1, 9);
      expect(result.confidence).toBe(result.probabilities[result.tier]);
      if (mode === 'heuristic') expect(result.cause).toBe('heuristic');
      if (mode === 'learned') expect(result.cause).toBe('learned');
    }
  });

  it('measures stage latency with the injected clock', () => {
    let time = 0;
    const now = (): number => (time += 2);
    const local = createLocalClassifier({ mode: 'local', model, now }).classifyLocal(ask('hello'));
    expect(local.stageLatencyMs).toEqual({ heuristic: 2, learned: 2 });
    const heuristic = createLocalClassifier({ mode: 'heuristic', now }).classifyLocal(ask('hello'));
    expect(heuristic.stageLatencyMs).toEqual({ heuristic: 2, learned: 0 });
  });

  it('implements the async Classifier interface without calling an LLM', async () => {
    const classifier = createLocalClassifier({ mode: 'local', model });
    const decision = await classifier.classify(ask('Translate "good night" into Korean'));
    expect(decision.llmCalled).toBe(false);
    expect(decision.tier).toBe(classifier.classifyLocal(ask('Translate "good night" into Korean')).tier);
    expect(decision.signals).toContain('translate_verb');
  });

  it('needs a model for learned and local modes', () => {
    expect(() => createLocalClassifier({ mode: 'learned' })).toThrow(/needs a model/);
  });
});

describe('isSureLocalDecision', () => {
  it('is sure when the chosen tier reaches the threshold', () => {
    const result = createLocalClassifier({ mode: 'local', model }).classifyLocal(ask('hi'));
    expect(isSureLocalDecision(result, result.confidence)).toBe(true);
    expect(isSureLocalDecision(result, result.confidence + 0.01)).toBe(false);
  });
});
