import type { Tier } from '../shared/tier.js';
import {
  DEFAULT_INPUT_LIMITS,
  toClassifyInput,
  type ClassifyInput,
  type ClassifyInputLimits,
} from './classify-input.js';
import type { ClassificationDecision, Classifier, ClassifyRequest, TierProbabilities } from './decision.js';
import { applyTierBounds, chooseTier, type TierBounds } from './choose-tier.js';
import { scoreHeuristics, type HeuristicResult } from './heuristics.js';
import { createLearnedClassifier } from './learned-classifier.js';
import type { DecisionPolicy, LocalModel } from './local-model.js';
import { toTextProfile } from './text-profile.js';
import { applyBlend } from './tier-blend.js';

/**
 * `heuristic`: the signal table's scores and bounds decide. `learned`: the model decides alone; it still
 * reads the fired signals as features when it was trained with them, but no heuristic bound applies.
 * `local`: the model's probabilities blended with the heuristic scores (when the model carries a blend),
 * then the high-precision heuristic floors and ceilings.
 */
export type LocalMode = 'heuristic' | 'learned' | 'local';

export interface LocalClassification {
  tier: Tier;
  probabilities: TierProbabilities;
  /** Probability of the chosen tier, 0..1. */
  confidence: number;
  signals: readonly string[];
  needsVision: boolean;
  /** Milliseconds per stage; 0 for a stage that did not run. */
  stageLatencyMs: { heuristic: number; learned: number };
  /** `heuristic` when the heuristics alone decided or a heuristic bound changed the model's tier. */
  cause: 'heuristic' | 'learned';
}

export interface LocalClassifier extends Classifier {
  /** Synchronous local decision; never calls out. */
  classifyLocal(request: ClassifyRequest): LocalClassification;
  /** The same, for an input already extracted (the cascade builds it once for its cache key too). */
  classifyInput(input: ClassifyInput): LocalClassification;
}

export interface LocalClassifierOptions {
  mode: LocalMode;
  /** Required for `learned` and `local`. */
  model?: LocalModel;
  /** Overrides the model's decision policy (for experiments and tests). */
  decision?: DecisionPolicy;
  /** High-resolution time in milliseconds, for stage latencies. @default performance.now */
  now?: () => number;
  limits?: ClassifyInputLimits;
}

/** Used when no model supplies a tuned policy: lean one tier up only when it is nearly as likely. */
export const DEFAULT_DECISION: DecisionPolicy = Object.freeze({ underPenalty: 0.3 });

export function createLocalClassifier(options: LocalClassifierOptions): LocalClassifier {
  const { mode, model, now = () => performance.now(), limits = DEFAULT_INPUT_LIMITS } = options;
  if (mode !== 'heuristic' && model === undefined)
    throw new Error(`local classifier mode '${mode}' needs a model`);
  const learned =
    mode === 'heuristic' || model === undefined ? undefined : createLearnedClassifier({ model });
  /** The model's policy was tuned on its own probabilities; the heuristic scores keep the default. */
  const policy = options.decision ?? (mode === 'heuristic' ? undefined : model?.decision) ?? DEFAULT_DECISION;
  const needsHeuristics = mode !== 'learned' || learned?.usesSignals === true;

  const classifyInput = (input: ClassifyInput): LocalClassification => {
    const started = now();
    const heuristic = needsHeuristics ? scoreHeuristics(input) : undefined;
    const heuristicMs = now() - started;
    if (learned === undefined) {
      return decideByHeuristics(heuristic ?? scoreHeuristics(input), { input, policy, heuristicMs });
    }
    const learnedStarted = now();
    const profile = heuristic?.profile ?? toTextProfile(input.lowerText);
    const predicted = learned.predict({ input, profile, signals: heuristic?.signals ?? [] });
    const blend = mode === 'local' ? model?.blend : undefined;
    const probabilities =
      blend === undefined || heuristic === undefined
        ? predicted
        : applyBlend(blend, { learned: predicted, heuristic: heuristic.probabilities });
    const stageLatencyMs = { heuristic: heuristicMs, learned: now() - learnedStarted };
    const bounds = mode === 'local' ? heuristic : undefined;
    return decideByModel(probabilities, {
      input,
      policy,
      bounds,
      signals: heuristic?.signals ?? [],
      stageLatencyMs,
    });
  };

  const classifyLocal = (request: ClassifyRequest): LocalClassification =>
    classifyInput(toClassifyInput(request, limits));
  return {
    classifyLocal,
    classifyInput,
    classify: (request) => Promise.resolve(toClassificationDecision(classifyLocal(request))),
  };
}

interface HeuristicDecisionContext {
  input: ClassifyInput;
  policy: DecisionPolicy;
  heuristicMs: number;
}

function decideByHeuristics(
  heuristic: HeuristicResult,
  context: HeuristicDecisionContext,
): LocalClassification {
  const probabilities = applyTierBounds(heuristic.probabilities, heuristic);
  const tier = chooseTier(probabilities, context.policy);
  return {
    tier,
    probabilities,
    confidence: probabilities[tier],
    signals: heuristic.signals,
    needsVision: context.input.needsVision,
    stageLatencyMs: { heuristic: context.heuristicMs, learned: 0 },
    cause: 'heuristic',
  };
}

interface ModelDecisionContext {
  input: ClassifyInput;
  policy: DecisionPolicy;
  /** Heuristic floors and ceilings, in `local` mode only. */
  bounds: TierBounds | undefined;
  signals: readonly string[];
  stageLatencyMs: LocalClassification['stageLatencyMs'];
}

function decideByModel(
  modelProbabilities: TierProbabilities,
  context: ModelDecisionContext,
): LocalClassification {
  const modelTier = chooseTier(modelProbabilities, context.policy);
  const probabilities =
    context.bounds === undefined ? modelProbabilities : applyTierBounds(modelProbabilities, context.bounds);
  const tier = context.bounds === undefined ? modelTier : chooseTier(probabilities, context.policy);
  return {
    tier,
    probabilities,
    confidence: probabilities[tier],
    signals: context.signals,
    needsVision: context.input.needsVision,
    stageLatencyMs: context.stageLatencyMs,
    cause: tier === modelTier ? 'learned' : 'heuristic',
  };
}

/**
 * True when the local decision can stand without asking the LLM stage: the chosen tier's probability
 * reaches `threshold` (0..1). A heuristic bound that decided counts as sure.
 */
export function isSureLocalDecision(
  classification: Pick<LocalClassification, 'confidence'>,
  threshold: number,
): boolean {
  return classification.confidence >= threshold;
}

export function toClassificationDecision(local: LocalClassification): ClassificationDecision {
  const reason =
    local.signals.length > 0
      ? `${local.cause}: ${local.signals.slice(0, 6).join(', ')}`
      : `${local.cause}: no signal`;
  return {
    tier: local.tier,
    cause: local.cause,
    confidence: local.confidence,
    probabilities: local.probabilities,
    signals: local.signals,
    needsVision: local.needsVision,
    stageLatencyMs: local.stageLatencyMs,
    llmCalled: false,
    reason,
  };
}
