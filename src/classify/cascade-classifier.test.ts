import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../shared/logger.js';
import { createManualClock } from '../shared/clock.js';
import type { Tier } from '../shared/tier.js';
import { createCascadeClassifier, type CascadeOptions } from './cascade-classifier.js';
import { combineVerdicts } from './cascade-decision.js';
import { toNeighbourConfusion } from './combine-with-verdict.js';
import { createCircuitBreaker } from './circuit-breaker.js';
import { createClassificationCache } from './classification-cache.js';
import type { LlmOutcome, LlmStage } from './llm-stage.js';
import type { LocalClassification, LocalClassifier } from './local-classifier.js';

function localSaying(tier: Tier, confidence: number): LocalClassifier {
  const probabilities = { SIMPLE: 0, MODERATE: 0, COMPLEX: 0, EXPERT: 0, [tier]: confidence };
  const result: LocalClassification = {
    tier,
    probabilities,
    confidence,
    signals: ['test'],
    needsVision: false,
    stageLatencyMs: { heuristic: 0.01, learned: 0.01 },
    cause: 'learned',
  };
  return {
    classifyLocal: () => result,
    classifyInput: () => result,
    classify: () => Promise.reject(new Error('unused')),
  };
}

/** An LLM stage that answers with `outcome`, or never answers (until aborted) when outcome is 'silent'. */
function llmAnswering(outcome: LlmOutcome | 'silent'): LlmStage & { calls: number } {
  const stage = {
    calls: 0,
    ask: (_input: unknown, signal: AbortSignal): Promise<LlmOutcome> => {
      stage.calls += 1;
      if (outcome !== 'silent') return Promise.resolve(outcome);
      return new Promise((resolve) =>
        signal.addEventListener('abort', () => resolve({ ok: false, problem: 'deadline', tokens: 40 })),
      );
    },
  };
  return stage;
}

const verdict = (complexity: Tier): LlmOutcome => ({
  ok: true,
  verdict: { complexity, reason: 'r', needsVision: false },
  tokens: 120,
});

function cascade(overrides: Partial<CascadeOptions>): ReturnType<typeof createCascadeClassifier> {
  const clock = overrides.clock ?? createManualClock(0);
  return createCascadeClassifier({
    mode: 'cascade',
    local: localSaying('MODERATE', 0.9),
    llm: llmAnswering(verdict('EXPERT')),
    breaker: createCircuitBreaker({ clock, failureThreshold: 2, openMs: 10_000 }),
    cache: createClassificationCache({ clock, maxEntries: 100, ttlMs: 60_000 }),
    threshold: 0.6,
    deadlineMs: 50,
    combination: {
      disagreement: 'round_up',
      calibration: { confusion: toNeighbourConfusion(0.87), localWeight: 1, underPenalty: 1 },
    },
    clock,
    now: () => performance.now(),
    logger: silentLogger,
    ...overrides,
  });
}

const request = (text: string) => ({ messages: [{ role: 'user', content: text }] });

describe('the classification cascade', () => {
  it('decides locally when the learned model is sure', async () => {
    const llm = llmAnswering(verdict('EXPERT'));
    const decision = await cascade({ llm }).classify(request('a'));
    expect(decision).toMatchObject({ tier: 'MODERATE', cause: 'learned', llmCalled: false });
    expect(llm.calls).toBe(0);
  });

  it('asks the LLM when the learned model is below the threshold, and rounds up a one-tier disagreement', async () => {
    const decision = await cascade({
      local: localSaying('MODERATE', 0.4),
      llm: llmAnswering(verdict('SIMPLE')),
    }).classify(request('a'));
    expect(decision).toMatchObject({ tier: 'MODERATE', cause: 'llm', llmCalled: true, llmTokens: 120 });
  });

  it('takes the LLM verdict when the stages disagree by two tiers', async () => {
    const decision = await cascade({
      local: localSaying('SIMPLE', 0.4),
      llm: llmAnswering(verdict('COMPLEX')),
    }).classify(request('a'));
    expect(decision.tier).toBe('COMPLEX');
  });

  it('adds at most the deadline when the LLM never answers, and falls back one tier up', async () => {
    // fake timers: the deadline is a setTimeout, so the test moves time instead of measuring it
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let settled = false;
      const pending = cascade({
        local: localSaying('MODERATE', 0.4),
        llm: llmAnswering('silent'),
        deadlineMs: 50,
      })
        .classify(request('a'))
        .finally(() => (settled = true));
      await vi.advanceTimersByTimeAsync(49);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(settled).toBe(true);
      expect(await pending).toMatchObject({ tier: 'COMPLEX', cause: 'fallback' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('falls back on an invalid reply', async () => {
    const decision = await cascade({
      local: localSaying('SIMPLE', 0.3),
      llm: llmAnswering({ ok: false, problem: 'bad json', tokens: 130 }),
    }).classify(request('a'));
    expect(decision).toMatchObject({ tier: 'MODERATE', cause: 'fallback' });
  });

  it('stops calling a failing LLM once the circuit opens, and probes again after open_ms', async () => {
    const clock = createManualClock(0);
    const llm = llmAnswering({ ok: false, problem: '500', tokens: 130 });
    const classifier = cascade({ clock, local: localSaying('SIMPLE', 0.3), llm });
    for (const text of ['a', 'b', 'c', 'd']) await classifier.classify(request(text));
    expect(llm.calls).toBe(2);
    clock.advance(10_000);
    await classifier.classify(request('e'));
    expect(llm.calls).toBe(3);
  });

  it('answers a repeated request from the cache without any stage', async () => {
    const llm = llmAnswering(verdict('EXPERT'));
    const classifier = cascade({ local: localSaying('COMPLEX', 0.5), llm });
    await classifier.classify(request('Prove it.'));
    const again = await classifier.classify(request('Prove it.'));
    expect(again).toMatchObject({ tier: 'EXPERT', cause: 'cache', cachedFrom: 'llm', llmCalled: false });
    expect(llm.calls).toBe(1);
  });

  it('asks again for another spelling of a cached text and for the same text in another cache scope', async () => {
    const llm = llmAnswering(verdict('EXPERT'));
    const classifier = cascade({ local: localSaying('COMPLEX', 0.5), llm });
    await classifier.classify({ ...request('Prove it.'), cacheScope: 'key-a' });
    expect((await classifier.classify(request('  prove   IT. '))).cause).toBe('llm');
    expect((await classifier.classify({ ...request('Prove it.'), cacheScope: 'key-b' })).cause).toBe('llm');
    expect((await classifier.classify({ ...request('Prove it.'), cacheScope: 'key-a' })).cause).toBe('cache');
    expect(llm.calls).toBe(3);
  });

  it('names the stage behind a cached decision and books no classifier tokens for it', async () => {
    const llm = llmAnswering(verdict('EXPERT'));
    const classifier = cascade({ local: localSaying('COMPLEX', 0.5), llm });
    expect((await classifier.classify(request('Prove it.'))).llmTokens).toBeGreaterThan(0);
    const again = await classifier.classify(request('Prove it.'));
    expect(again).toMatchObject({ cause: 'cache', cachedFrom: 'llm', llmTokens: 0 });
    const sure = cascade({ local: localSaying('SIMPLE', 0.99), llm: llmAnswering(verdict('EXPERT')) });
    await sure.classify(request('hi'));
    expect(await sure.classify(request('hi'))).toMatchObject({ cause: 'cache', cachedFrom: 'learned' });
  });

  it('expires cached decisions after the TTL', async () => {
    const clock = createManualClock(0);
    const llm = llmAnswering(verdict('EXPERT'));
    const classifier = cascade({ clock, local: localSaying('COMPLEX', 0.5), llm });
    await classifier.classify(request('x'));
    clock.advance(60_000);
    expect((await classifier.classify(request('x'))).cause).toBe('llm');
  });

  it('always asks in llm mode and never in local mode', async () => {
    const asked = llmAnswering(verdict('SIMPLE'));
    expect((await cascade({ mode: 'llm', llm: asked }).classify(request('a'))).tier).toBe('SIMPLE');
    const never = llmAnswering(verdict('SIMPLE'));
    expect(
      (
        await cascade({ mode: 'local', local: localSaying('MODERATE', 0.1), llm: never }).classify(
          request('a'),
        )
      ).cause,
    ).toBe('learned');
    expect(never.calls).toBe(0);
  });

  it('combines one-tier disagreements by the configured policy', () => {
    expect(combineVerdicts('SIMPLE', 'MODERATE', 'round_up')).toBe('MODERATE');
    expect(combineVerdicts('COMPLEX', 'MODERATE', 'round_up')).toBe('COMPLEX');
    expect(combineVerdicts('COMPLEX', 'MODERATE', 'llm')).toBe('MODERATE');
    expect(combineVerdicts('COMPLEX', 'MODERATE', 'local')).toBe('COMPLEX');
  });

  it('decides by the calibrated posterior: a one-tier-off verdict against a leaning local stage', async () => {
    const leaning = localSaying('MODERATE', 0.55);
    const probabilities = { SIMPLE: 0.05, MODERATE: 0.55, COMPLEX: 0.35, EXPERT: 0.05 };
    const result = { ...leaning.classifyLocal(request('a')), probabilities };
    const local: LocalClassifier = { ...leaning, classifyInput: () => result, classifyLocal: () => result };
    const calibration = { confusion: toNeighbourConfusion(0.87), localWeight: 1, underPenalty: 1 };
    const towardsLlm = await cascade({
      local,
      llm: llmAnswering(verdict('COMPLEX')),
      combination: { disagreement: 'calibrated', calibration },
    }).classify(request('a'));
    expect(towardsLlm).toMatchObject({ tier: 'COMPLEX', cause: 'llm', llmCalled: true });
    const withWeight = (localWeight: number) =>
      cascade({
        local,
        llm: llmAnswering(verdict('SIMPLE')),
        combination: { disagreement: 'calibrated', calibration: { ...calibration, localWeight } },
      }).classify(request('a'));
    // round_up would say MODERATE; ignoring the local stage, the posterior follows the LLM down
    expect((await withWeight(0)).tier).toBe('SIMPLE');
    expect((await withWeight(4)).tier).toBe('MODERATE');
  });

  it('tells the learning hook about each LLM decision, and not about local or failed ones', async () => {
    const events: unknown[] = [];
    const onLlmDecision = (event: unknown): number => events.push(event);
    await cascade({ local: localSaying('MODERATE', 0.4), onLlmDecision }).classify(request('unsure'));
    await cascade({ local: localSaying('MODERATE', 0.9), onLlmDecision }).classify(request('sure'));
    await cascade({
      local: localSaying('MODERATE', 0.4),
      llm: llmAnswering({ ok: false, problem: 'boom', tokens: 1 }),
      onLlmDecision,
    }).classify(request('failed'));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ verdict: { complexity: 'EXPERT' }, local: { tier: 'MODERATE' } });
  });

  it('with the value gate, asks about a torn request and not a sure one, whatever the threshold', async () => {
    const calibration = { confusion: toNeighbourConfusion(0.87), localWeight: 1, underPenalty: 1 };
    const withProbabilities = (probabilities: LocalClassification['probabilities']): LocalClassifier => {
      const result = {
        ...localSaying('MODERATE', probabilities.MODERATE).classifyLocal(request('a')),
        probabilities,
      };
      return { ...localSaying('MODERATE', 0), classifyInput: () => result, classifyLocal: () => result };
    };
    const run = async (probabilities: LocalClassification['probabilities']) => {
      const llm = llmAnswering(verdict('COMPLEX'));
      await cascade({
        local: withProbabilities(probabilities),
        llm,
        threshold: 0,
        gate: { by: 'value', minValue: 0.2 },
        combination: { disagreement: 'calibrated', calibration },
      }).classify(request('a'));
      return llm.calls;
    };
    expect(await run({ SIMPLE: 0.05, MODERATE: 0.5, COMPLEX: 0.4, EXPERT: 0.05 })).toBe(1);
    expect(await run({ SIMPLE: 0.002, MODERATE: 0.995, COMPLEX: 0.002, EXPERT: 0.001 })).toBe(0);
  });
});
