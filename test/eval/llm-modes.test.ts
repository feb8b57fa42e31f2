import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulatedBackend, type ResponderRequest, type SimBackend } from '../../sim/index.js';
import { createLocalClassifier } from '../../src/classify/local-classifier.js';
import { loadLocalModel } from '../../src/classify/local-model.js';
import { systemClock } from '../../src/shared/clock.js';
import { createVariantRunner, type VariantRunnerOptions } from '../../eval/create-variant-runner.js';
import type { EvalVariant } from '../../eval/eval-variants.js';
import { parseEvalFile } from '../../eval/parse-eval-file.js';
import { toConstantModelJson } from './constant-model.js';

const CASES = [
  { id: 'greet', prompt: 'hello there', label: 'SIMPLE' },
  { id: 'proof', prompt: 'prove that there are infinitely many primes', label: 'EXPERT' },
  { id: 'proof-again', prompt: 'prove that there are infinitely many primes', label: 'EXPERT' },
  { id: 'cook', prompt: 'what should I cook tonight for six people', label: 'SIMPLE' },
  {
    id: 'rome',
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'tell me about the history of the Roman empire' }] },
    ],
    label: 'SIMPLE',
  },
];
const THRESHOLD = 0.6;

/** Cases the local stage is unsure about (confidence below the default table's threshold). */
function countUnsure(modelPath: string): number {
  const local = createLocalClassifier({ mode: 'local', model: loadLocalModel(modelPath) });
  return parseEvalFile(CASES.map((value) => JSON.stringify(value)).join('\n')).cases.filter(
    (evalCase) => local.classifyLocal(evalCase.request).confidence < THRESHOLD,
  ).length;
}

/** The classifier model's stand-in: EXPERT for anything that asks for a proof, SIMPLE otherwise. */
function classify(request: ResponderRequest): { content: string } {
  const body = request.body as { messages: { content: string }[] };
  const user = JSON.parse(body.messages.at(-1)?.content ?? '{}') as { last_user_message?: string };
  const complexity = user.last_user_message?.includes('prove') === true ? 'EXPERT' : 'SIMPLE';
  return { content: JSON.stringify({ complexity, reason: 'test', needs_vision: false }) };
}

describe('cascade and llm modes against a simulated classifier server', () => {
  let backend: SimBackend;
  const folder = mkdtempSync(join(tmpdir(), 'autotier-eval-llm-'));
  const unsureModel = join(folder, 'unsure-model.json');
  const sureModel = join(folder, 'sure-model.json');

  beforeAll(async () => {
    backend = await createSimulatedBackend({
      id: 'classifier',
      models: ['Qwen/Qwen3-8B'],
      responder: classify,
    });
    writeFileSync(unsureModel, JSON.stringify(toConstantModelJson([0, 0, 0, 0])));
    writeFileSync(sureModel, JSON.stringify(toConstantModelJson([0, 0, 0, 8])));
  });

  afterAll(async () => {
    await backend.close();
    rmSync(folder, { recursive: true, force: true });
  });

  function toRunner(overrides: Partial<VariantRunnerOptions> = {}): ReturnType<typeof createVariantRunner> {
    return createVariantRunner({
      file: 'cases.jsonl',
      input: parseEvalFile(CASES.map((value) => JSON.stringify(value)).join('\n')),
      settings: {
        classifierUrl: backend.baseUrl,
        classifierModel: undefined,
        deadlineMs: 5000,
        concurrency: 2,
        worst: 5,
      },
      promptTemplate: 'Tiers: {{SIMPLE_MODEL}} {{EXPERT_MODEL}}',
      defaultModelPath: unsureModel,
      readSecret: () => undefined,
      createProgress: () => ({ update: () => undefined, finish: () => undefined }),
      clock: systemClock,
      now: () => performance.now(),
      ...overrides,
    });
  }

  const variant = (mode: EvalVariant['mode'], model?: string): EvalVariant => ({
    label: mode,
    mode,
    table: 'routing-tables/default.yaml',
    model,
  });

  it('asks the LLM for every case in llm mode, repeated prompts included (no cache)', async () => {
    backend.resetStats();
    const report = await toRunner().run(variant('llm'));
    expect(backend.stats().chatRequests).toBe(5);
    expect(report).toMatchObject({ n: 5, accuracy: 1, llm_call_rate: 1, causes: { llm: 5 } });
    expect(report.latency_ms.stages.llm.n).toBe(5);
    expect(report.latency_ms.stages.llm.p50).toBeGreaterThan(0);
  });

  it('asks the LLM only when the local stage is unsure in cascade mode', async () => {
    const unsureCount = countUnsure(unsureModel);
    expect(unsureCount).toBeGreaterThan(0);
    backend.resetStats();
    const unsure = await toRunner().run(variant('cascade', unsureModel));
    expect(backend.stats().chatRequests).toBe(unsureCount);
    expect(unsure.llm_call_rate).toBeCloseTo(unsureCount / 5, 12);
    expect(unsure.latency_ms.stages.llm.n).toBe(unsureCount);
    backend.resetStats();
    const sure = await toRunner().run(variant('cascade', sureModel));
    expect(backend.stats().chatRequests).toBe(0);
    expect(sure.llm_call_rate).toBe(0);
  });

  it('falls back to the local decision and says so when the server is down', async () => {
    const down = await createSimulatedBackend({ id: 'down', models: ['Qwen/Qwen3-8B'] });
    const url = down.baseUrl;
    await down.close();
    const runner = toRunner({
      input: parseEvalFile(JSON.stringify(CASES[0])),
      settings: {
        classifierUrl: url,
        classifierModel: undefined,
        deadlineMs: 2000,
        concurrency: 1,
        worst: 5,
      },
    });
    const report = await runner.run(variant('llm'));
    expect(report.causes.fallback).toBe(1);
  });
});
