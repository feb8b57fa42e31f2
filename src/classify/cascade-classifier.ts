import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { CircuitBreaker } from './circuit-breaker.js';
import type { ClassificationCache } from './classification-cache.js';
import { toCacheKey } from './classification-cache.js';
import { toClassifyInput } from './classify-input.js';
import {
  shouldAskLlm,
  toCascadeTier,
  toFallbackTier,
  type CascadeCombination,
  type CascadeGate,
} from './cascade-decision.js';
import type { ClassificationDecision, Classifier, ClassifyRequest } from './decision.js';
import type { LlmStage, LlmOutcome } from './llm-stage.js';
import {
  toClassificationDecision,
  type LocalClassification,
  type LocalClassifier,
} from './local-classifier.js';
import type { LlmVerdict } from './parse-classifier-reply.js';
import type { CancelSignal } from '../shared/cancel-signal.js';

export interface CascadeOptions {
  mode: 'local' | 'cascade' | 'llm';
  local: LocalClassifier;
  /** Absent when no classifier deployment is configured: the cascade then stays local. */
  llm: LlmStage | undefined;
  breaker: CircuitBreaker;
  cache: ClassificationCache;
  /**
   * Local probability of the chosen tier at or above which the local stage counts as sure: the
   * `confidence` gate's cutoff, and whether a failed LLM call rounds the local tier up.
   */
  threshold: number;
  /** Which requests `cascade` mode asks the LLM about. @default { by: 'confidence', threshold } */
  gate?: CascadeGate;
  /** Hard deadline of the LLM call, ms. */
  deadlineMs: number;
  /** How the local decision and the LLM's verdict combine (see `toCascadeTier`). */
  combination: CascadeCombination;
  /** Told of every request the LLM stage decided, for `classifier.learn`; must not block. */
  onLlmDecision?: (event: LlmDecisionEvent) => void;
  clock: Clock;
  /** High-resolution ms for stage latencies. */
  now: () => number;
  logger: Logger;
}

/** A request the LLM stage decided: what `classifier.learn` records (never the text itself). */
export interface LlmDecisionEvent {
  input: ReturnType<typeof toClassifyInput>;
  local: LocalClassification;
  verdict: LlmVerdict;
}

const NOT_CALLED = { milliseconds: 0, tokens: 0 };

async function askWithDeadline(
  stage: LlmStage,
  request: {
    input: ReturnType<typeof toClassifyInput>;
    deadlineMs: number;
    signal: CancelSignal | undefined;
  },
): Promise<LlmOutcome> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), request.deadlineMs);
  const onAbort = (): void => controller.abort();
  request.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await stage.ask(request.input, controller.signal);
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Heuristics and the learned model first; the LLM only when they are unsure (or always, in `llm`
 * mode), under a hard deadline and behind a circuit breaker. A failed LLM call falls back to the
 * local decision, rounded up one tier when the local stage was unsure.
 */
export function createCascadeClassifier(options: CascadeOptions): Classifier {
  const gate = options.gate ?? { by: 'confidence', threshold: options.threshold };
  const fromLlm = (
    local: LocalClassification,
    verdict: LlmVerdict,
    llm: { milliseconds: number; tokens: number },
  ): ClassificationDecision => {
    const tier =
      options.mode === 'llm'
        ? verdict.complexity
        : toCascadeTier(local, verdict.complexity, options.combination);
    return {
      ...toClassificationDecision(local),
      tier,
      cause: 'llm',
      confidence: tier === verdict.complexity ? 1 : local.probabilities[tier],
      needsVision: local.needsVision || verdict.needsVision,
      stageLatencyMs: { ...local.stageLatencyMs, llm: llm.milliseconds },
      llmCalled: true,
      llmTokens: llm.tokens,
      reason: verdict.reason,
    };
  };
  const fallback = (
    local: LocalClassification,
    problem: string,
    llm: { milliseconds: number; tokens: number },
  ): ClassificationDecision => {
    const llmMs = llm.milliseconds;
    const tier = toFallbackTier(local, options.threshold);
    return {
      ...toClassificationDecision(local),
      tier,
      cause: 'fallback',
      stageLatencyMs: { ...local.stageLatencyMs, llm: llmMs },
      llmCalled: llmMs > 0,
      llmTokens: llm.tokens,
      reason: `LLM stage unavailable (${problem})`,
    };
  };

  async function classify(request: ClassifyRequest, signal?: CancelSignal): Promise<ClassificationDecision> {
    const input = toClassifyInput(request);
    const key = toCacheKey(input);
    const cached = options.cache.get(key);
    if (cached !== undefined)
      return Object.assign({}, cached, {
        cause: 'cache' as const,
        cachedFrom: cached.cause === 'cache' ? cached.cachedFrom : cached.cause,
        llmCalled: false,
        llmTokens: 0,
        stageLatencyMs: {},
      });
    const local = options.local.classifyInput(input);
    const wantsLlm =
      options.mode === 'llm' ||
      (options.mode === 'cascade' && shouldAskLlm(local, gate, options.combination.calibration));
    let decision: ClassificationDecision;
    if (!wantsLlm) decision = toClassificationDecision(local);
    else if (options.llm === undefined) decision = fallback(local, 'no classifier deployment', NOT_CALLED);
    else if (!options.breaker.allow()) decision = fallback(local, 'circuit open', NOT_CALLED);
    else {
      const started = options.now();
      const outcome = await askWithDeadline(options.llm, { input, deadlineMs: options.deadlineMs, signal });
      const llmMs = options.now() - started;
      if (outcome.ok) options.breaker.succeed();
      else if (signal?.aborted !== true) {
        options.breaker.fail();
        options.logger.warn('classifier LLM failed', {
          problem: outcome.problem,
          latency_ms: Math.round(llmMs),
          breaker: options.breaker.state(),
        });
      }
      const llm = { milliseconds: llmMs, tokens: outcome.tokens };
      decision = outcome.ok ? fromLlm(local, outcome.verdict, llm) : fallback(local, outcome.problem, llm);
      if (outcome.ok) options.onLlmDecision?.({ input, local, verdict: outcome.verdict });
    }
    if (decision.cause !== 'fallback') options.cache.set(key, decision);
    return decision;
  }

  return { classify };
}
