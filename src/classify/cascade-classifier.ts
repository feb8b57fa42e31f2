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
import { NO_SPAN, type Span } from '../shared/tracing.js';

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
    span: Span;
  },
): Promise<LlmOutcome> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), request.deadlineMs);
  const onAbort = (): void => controller.abort();
  request.signal?.addEventListener('abort', onAbort, { once: true });
  const span = request.span.child('autotier.classify.llm', {
    kind: 'client',
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': stage.target?.model,
      'autotier.deployment': stage.target?.deploymentId,
    },
  });
  try {
    const headers = span.traceHeaders();
    const outcome = await stage.ask(
      request.input,
      controller.signal,
      headers['traceparent'] === undefined ? undefined : headers,
    );
    if (span.recording) traceLlmOutcome(span, outcome);
    return outcome;
  } finally {
    span.end();
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onAbort);
  }
}

/** The LLM stage's verdict on its span; a failure by kind only (its text may quote the server). */
function traceLlmOutcome(span: Span, outcome: LlmOutcome): void {
  span.setAttributes({
    'autotier.classify.tokens': outcome.tokens,
    'autotier.complexity': outcome.ok ? outcome.verdict.complexity : undefined,
  });
  if (!outcome.ok)
    span.fail({ code: outcome.problem === 'deadline' ? 'CLASSIFIER_DEADLINE' : 'CLASSIFIER_FAILED' });
}

/** Ends the local stage's span (heuristics and the learned model) with its decision. */
function endLocalSpan(span: Span, local: LocalClassification): void {
  if (span.recording)
    span.setAttributes({
      'autotier.complexity': local.tier,
      'autotier.cause': local.cause,
      'autotier.confidence': local.confidence,
      'autotier.signals': local.signals.length === 0 ? undefined : local.signals,
      'autotier.classify.heuristic_ms': local.stageLatencyMs.heuristic,
      'autotier.classify.learned_ms': local.stageLatencyMs.learned,
    });
  span.end();
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

  async function classify(
    request: ClassifyRequest,
    signal?: CancelSignal,
    span: Span = NO_SPAN,
  ): Promise<ClassificationDecision> {
    const input = toClassifyInput(request);
    const key = toCacheKey(input, request.cacheScope ?? '');
    const lookup = span.child('autotier.classify.cache');
    const cached = options.cache.get(key);
    if (lookup.recording)
      lookup.setAttributes({ 'autotier.cache.hit': cached !== undefined, 'autotier.cause': cached?.cause });
    lookup.end();
    if (cached !== undefined)
      return Object.assign({}, cached, {
        cause: 'cache' as const,
        cachedFrom: cached.cause === 'cache' ? cached.cachedFrom : cached.cause,
        llmCalled: false,
        llmTokens: 0,
        stageLatencyMs: {},
      });
    const localSpan = span.child('autotier.classify.local');
    const local = options.local.classifyInput(input);
    endLocalSpan(localSpan, local);
    const wantsLlm =
      options.mode === 'llm' ||
      (options.mode === 'cascade' && shouldAskLlm(local, gate, options.combination.calibration));
    let decision: ClassificationDecision;
    if (!wantsLlm) decision = toClassificationDecision(local);
    else if (options.llm === undefined) decision = fallback(local, 'no classifier deployment', NOT_CALLED);
    else if (!options.breaker.allow()) decision = fallback(local, 'circuit open', NOT_CALLED);
    else {
      const started = options.now();
      const outcome = await askWithDeadline(options.llm, {
        input,
        deadlineMs: options.deadlineMs,
        signal,
        span,
      });
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
