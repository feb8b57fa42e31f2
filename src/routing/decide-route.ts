import type { ClassificationDecision, Classifier } from '../classify/decision.js';
import type { TableRule } from '../classify/table-rules.js';
import type { DeploymentConfig, TierConfig } from '../config/table-part-schemas.js';
import { toChatDeployments } from '../config/deployment-kinds.js';
import type { RoutingTable } from '../config/routing-table-schema.js';
import type { RoutePlan } from '../balance/route-plan.js';
import { toAvailabilityState, type AvailabilityChecker } from '../policy/availability.js';
import { toOverrideRefused } from '../policy/client-overrides.js';
import { planRoute, toMaxTokens } from './plan-route.js';
import { toTierChangeLabel, type TierChange } from '../shared/tier-change.js';
import {
  allowsTier,
  capTierToKey,
  toForbidden,
  toNamedDeployments,
  type KeyAccess,
} from '../policy/key-access.js';
import { toDeploymentTokens, type PromptCount, type TokenCounter } from '../policy/token-counter.js';
import { toTokenizerNames } from '../tokenizers/tokenizer-name.js';
import { countImageParts, type ChatMessage } from '../shared/chat.js';
import { RouterError } from '../shared/errors.js';
import { isTier, maxTier, TIERS, toTierFromRank, toTierRank, type Tier } from '../shared/tier.js';
import type { StateStore } from '../state/state-store.js';
import type { CancelSignal } from '../shared/cancel-signal.js';
import { inSpan, NO_SPAN, type Span } from '../shared/tracing.js';
import { classifyWithRules, type RuledClassification } from './classify-with-rules.js';

/** Everything decided before the first upstream call; /v1/route returns it as is. */
export interface RouteDecision {
  complexity: Tier | undefined;
  cause: string;
  confidence: number | undefined;
  classification: ClassificationDecision | undefined;
  /** The largest count over the table's tokenizers, margin included (see PromptCount). */
  promptTokens: number;
  /** Whether promptTokens is an estimate: the prompt was too short for any window to matter. */
  promptTokensEstimated: boolean;
  /**
   * Content parts promptTokens leaves out (video, audio, files: see countUncountedParts); admission
   * then charges the prompt at the most the plan's windows allow. @default 0
   */
  uncountedParts?: number;
  plan: RoutePlan;
  tierConfig: TierConfig;
  maxTokens: number;
  rules: TierChange[];
  /** The tier a session ladder records after success (undefined: no session or a pinned model). */
  sessionTier: Tier | undefined;
  /** The session ladder's store key in force (from `toSessionKey`: hashed, per API key). */
  sessionKey?: string | undefined;
}

/** What the client said besides the body: headers that steer routing. */
export interface RouteHints {
  /** x-autotier-min-tier */
  minTier?: string | undefined;
  /**
   * The x-session-id header as sent in a request context; the gateway hands `decideRoute` the store
   * key made from it (or from `user`) by `toSessionKey`.
   */
  sessionKey?: string | undefined;
}

export interface DecideInput {
  table: RoutingTable;
  classifier: Classifier;
  /** The table's `classifier.rules`, compiled once per table load; applied to `auto` requests only. */
  tableRules?: readonly TableRule[] | undefined;
  tokenCounter: TokenCounter;
  checker: AvailabilityChecker;
  store: StateStore;
  now: number;
  request: {
    model: string;
    messages: readonly ChatMessage[];
    tools?: readonly unknown[] | null;
    maxTokens: number | undefined;
  };
  hints: RouteHints;
  /**
   * Why client overrides are refused (`toOverridesDisabledBy`: the table's `overrides.allow_client`
   * or the key's `allow_overrides`); undefined when they are allowed.
   */
  overridesDisabledBy?: string | undefined;
  /** The API key's allowed tiers and models; undefined = all. */
  allowed?: KeyAccess | undefined;
  /** The classification cache scope: the API key's SHA-256; undefined in open mode (one scope). */
  cacheScope?: string | undefined;
  signal: CancelSignal;
  /** The request's span: classification and the tier policy get spans under it. */
  span?: Span | undefined;
}

const TIER_ALIAS = /^tier:(.+)$/i;

/** Tier of a tier alias (`tier:COMPLEX`), or undefined for anything else. */
export function toAliasTier(model: string): Tier | undefined {
  const name = TIER_ALIAS.exec(model)?.[1]?.toUpperCase();
  if (name === undefined) return undefined;
  if (!isTier(name)) {
    throw new RouterError({
      code: 'MODEL_NOT_FOUND',
      message: `unknown tier alias "${model}"; use one of ${TIERS.map((tier) => `tier:${tier}`).join(', ')}`,
      param: 'model',
    });
  }
  return name;
}

function toMinTier(value: string | undefined): Tier | undefined {
  if (value === undefined || value === '') return undefined;
  const upper = value.trim().toUpperCase();
  if (!isTier(upper))
    throw new RouterError({
      code: 'INVALID_REQUEST',
      message: `x-autotier-min-tier must be one of ${TIERS.join(', ')}`,
      param: 'x-autotier-min-tier',
    });
  return upper;
}

/** A concrete served model name: balance over its deployments only, never another model. */
function decideModel(input: DecideInput, count: PromptCount): RouteDecision | undefined {
  const { table, request } = input;
  const serving = toNamedDeployments({ table, access: input.allowed, model: request.model });
  if (serving.length === 0) return undefined;
  const tierName =
    TIERS.find((tier) => serving.some((deployment) => table.tiers[tier].group.includes(deployment.id))) ??
    'EXPERT';
  const tierConfig = table.tiers[tierName];
  const maxTokens = toMaxTokens(tierConfig, request.maxTokens);
  const fits = (deployment: DeploymentConfig): boolean =>
    deployment.context_window >= toDeploymentTokens(count, deployment) + maxTokens;
  const group = serving.filter(fits);
  if (group.length === 0) {
    const widest = serving.reduce((best, deployment) =>
      deployment.context_window > best.context_window ? deployment : best,
    );
    throw new RouterError({
      code: 'CONTEXT_LENGTH_EXCEEDED',
      message: `${toDeploymentTokens(count, widest)} prompt tokens + max_tokens ${maxTokens} exceed ${request.model}'s context window of ${widest.context_window} tokens`,
      param: 'messages',
    });
  }
  const plan: RoutePlan = {
    tier: tierName,
    group,
    fallback: [],
    strategy: tierConfig.strategy,
    timeouts: tierConfig.timeouts,
    retryInPlace: tierConfig.retry_in_place,
  };
  const rules = [
    { rule: 'override', from: 'auto', to: request.model, reason: `client asked for model ${request.model}` },
  ];
  return toUnclassifiedDecision({
    cause: 'override',
    promptTokens: count.tokens,
    promptTokensEstimated: count.estimated,
    plan,
    tierConfig,
    maxTokens,
    rules,
  });
}

/** A decision made by a rule alone (a named model, the autocomplete group): no classification, no session. */
export function toUnclassifiedDecision(
  decided: Pick<
    RouteDecision,
    'cause' | 'promptTokens' | 'promptTokensEstimated' | 'plan' | 'tierConfig' | 'maxTokens' | 'rules'
  >,
): RouteDecision {
  return {
    complexity: undefined,
    confidence: undefined,
    classification: undefined,
    sessionTier: undefined,
    ...decided,
  };
}

export interface Target {
  kind: 'auto' | 'alias' | 'model';
  tier?: Tier;
  rules: TierChange[];
}

/** Throws MODEL_NOT_FOUND for a model that is neither a tier alias nor served by the table. */
function checkServed(table: RoutingTable, model: string): void {
  const isServed =
    toAliasTier(model) !== undefined ||
    toChatDeployments(table.deployments).some(
      (deployment) => deployment.model === model || deployment.id === model,
    );
  if (!isServed)
    throw new RouterError({
      code: 'MODEL_NOT_FOUND',
      message: `model "${model}" is not served here; use "auto", a tier alias or a model from /v1/models`,
      param: 'model',
    });
}

/**
 * Throws OVERRIDE_NOT_ALLOWED when overrides are disabled and the client still chose: a model other
 * than `auto`, or x-autotier-min-tier. Checked before classification, which may cost an LLM call.
 */
function refuseOverrides(input: DecideInput): void {
  const disabledBy = input.overridesDisabledBy;
  if (disabledBy === undefined) return;
  const { model } = input.request;
  if (model !== 'auto') throw toOverrideRefused({ asked: `model "${model}"`, param: 'model', disabledBy });
  const minTier = toMinTier(input.hints.minTier);
  if (minTier !== undefined)
    throw toOverrideRefused({
      asked: `x-autotier-min-tier ${minTier}`,
      param: 'x-autotier-min-tier',
      disabledBy,
    });
}

/** What the `model` field asks for, after the operator's override policy. */
function toTarget(input: DecideInput): Target {
  const { model } = input.request;
  if (model !== 'auto') checkServed(input.table, model);
  refuseOverrides(input);
  const alias = model === 'auto' ? undefined : toAliasTier(model);
  if (alias === undefined) return { kind: model === 'auto' ? 'auto' : 'model', rules: [] };
  const { allowed } = input;
  if (!allowsTier(allowed, alias))
    throw toForbidden(`key ${allowed?.keyName ?? ''} may not use tier ${alias}`);
  return {
    kind: 'alias',
    tier: alias,
    rules: [{ rule: 'override', from: 'auto', to: alias, reason: `client asked for tier:${alias}` }],
  };
}

/** Caps a decision raised by classification or a session at the highest tier the key may use. */
function capToKey(input: DecideInput, tier: Tier, rules: TierChange[]): Tier {
  const capped = capTierToKey(input.allowed, tier);
  if (capped !== tier)
    rules.push({
      rule: 'key_tier_cap',
      from: tier,
      to: capped,
      reason: `key ${input.allowed?.keyName ?? ''} may use ${input.allowed?.tiers?.join(', ') ?? ''}`,
    });
  return capped;
}

/** Raises the tier to the client's minimum and to the session's ladder; each raise is a rule. */
async function applyFloors(input: DecideInput, tier: Tier, rules: TierChange[]): Promise<Tier> {
  let floored = tier;
  const minTier = toMinTier(input.hints.minTier);
  if (minTier !== undefined && !allowsTier(input.allowed, minTier))
    throw toForbidden(
      `key ${input.allowed?.keyName ?? ''} may not use tier ${minTier} (asked by x-autotier-min-tier)`,
      'x-autotier-min-tier',
    );
  if (minTier !== undefined && toTierRank(minTier) > toTierRank(floored)) {
    rules.push({ rule: 'min_tier', from: floored, to: minTier, reason: 'x-autotier-min-tier header' });
    floored = minTier;
  }
  const { sessionKey } = input.hints;
  if (sessionKey !== undefined && input.table.sessions.enabled) {
    const rank = await input.store.getSessionTier(sessionKey);
    if (rank !== undefined && rank > toTierRank(floored)) {
      const sessionTier = toTierFromRank(rank);
      rules.push({
        rule: 'session',
        from: floored,
        to: sessionTier,
        reason: `session used ${sessionTier} in the last ${input.table.sessions.window_minutes} minutes`,
      });
      floored = sessionTier;
    }
  }
  return floored;
}

/**
 * Prompt tokens below which no deployment of the table can be ruled out by its context window:
 * the smallest window less the largest max_tokens any tier may send. Below it the count is estimated.
 */
function toExactCountThreshold(table: DecideInput['table'], requestedMaxTokens: number | undefined): number {
  let smallestWindow = Infinity;
  for (const deployment of toChatDeployments(table.deployments))
    smallestWindow = Math.min(smallestWindow, deployment.context_window);
  let largestMaxTokens = 0;
  for (const tier of TIERS) {
    const limits = table.tiers[tier].max_tokens;
    largestMaxTokens = Math.max(
      largestMaxTokens,
      limits.default,
      Math.min(requestedMaxTokens ?? 0, limits.cap),
    );
  }
  return Math.max(0, smallestWindow - largestMaxTokens);
}

/** The widest context window of the table: a count above it fits nowhere, so counting stops there. */
export function toLargestWindow(table: DecideInput['table']): number {
  let largest = 0;
  for (const deployment of toChatDeployments(table.deployments))
    largest = Math.max(largest, deployment.context_window);
  return largest;
}

/**
 * Prompt tokens under each tokenizer of the table: estimated when even the byte bound fits every
 * window, else counted (stopping above the widest window, and when the client goes away).
 */
function countPrompt(input: DecideInput): Promise<PromptCount> {
  const { request, table } = input;
  return input.tokenCounter.countChat(
    { messages: request.messages, tools: request.tools ?? undefined },
    {
      tokenizers: toTokenizerNames(toChatDeployments(table.deployments)),
      safetyMargin: table.tokens.safety_margin,
      imageTokens: table.tokens.image_tokens,
      estimateBelow: toExactCountThreshold(table, request.maxTokens),
      stopAbove: toLargestWindow(table),
      signal: input.signal,
    },
  );
}

/**
 * The first half of a decision (the classify stage): the prompt's count, what the model field asks for
 * (auto, a tier alias or a served model, after the override policy), and for `auto` the classifier's
 * decision under the table's rules. No tier policy yet.
 */
export interface Classified {
  count: PromptCount;
  target: Target;
  /** The classification of an `auto` request; undefined for a tier alias or a named model. */
  auto: RuledClassification | undefined;
}

/** Counts the prompt, resolves the model field and, for `auto`, classifies (the classify stage). */
export async function classifyRoute(input: DecideInput): Promise<Classified> {
  const { request } = input;
  const count = await countPrompt(input);
  const target = toTarget(input);
  if (target.kind !== 'auto') return { count, target, auto: undefined };
  const classifyRequest = {
    messages: request.messages,
    ...(request.tools ? { tools: request.tools } : {}),
    ...(input.cacheScope === undefined ? {} : { cacheScope: input.cacheScope }),
  };
  const auto = await classifyWithRules({
    classifier: input.classifier,
    tableRules: input.tableRules ?? [],
    request: classifyRequest,
    signal: input.signal,
    span: input.span,
  });
  return { count, target, auto };
}

/**
 * The second half (the plan stage): a named model's deployments, or the tier after the client's floor,
 * the session's ladder and the key's cap, planned over the deployments that fit the prompt, take its
 * images and are open now.
 */
export async function planClassified(input: DecideInput, classified: Classified): Promise<RouteDecision> {
  const { request, table } = input;
  const { count, target, auto } = classified;
  const promptTokens = count.tokens;
  if (target.kind === 'model') {
    const decision = decideModel(input, count);
    if (decision !== undefined) return Object.assign(decision, { uncountedParts: count.uncountedParts ?? 0 });
  }
  const classification = auto?.classification;
  const asked = target.tier ?? auto?.tier ?? 'EXPERT';
  const rules = [...target.rules, ...(auto?.rules ?? [])];
  const { tier, planned } = await inSpan(input.span ?? NO_SPAN, 'autotier.policy', async (span) => {
    const tier = capToKey(input, await applyFloors(input, asked, rules), rules);
    const needsVision =
      request.messages.some((message) => countImageParts(message.content) > 0) ||
      (classification?.needsVision ?? false);
    const availability = toAvailabilityState({ table, checker: input.checker, now: input.now });
    const planned = planRoute({
      table,
      tier,
      promptTokens,
      promptTokensOf: (deployment) => toDeploymentTokens(count, deployment),
      requestedMaxTokens: request.maxTokens,
      needsVision,
      ...availability,
    });
    const plannedTier = planned.plan.tier;
    if (
      plannedTier !== 'AUTOCOMPLETE' &&
      plannedTier !== 'EMBEDDINGS' &&
      !allowsTier(input.allowed, plannedTier)
    ) {
      const why = planned.rules.map((rule) => rule.rule).join(', ');
      throw toForbidden(
        `the request needs tier ${plannedTier} (${why}), which key ${input.allowed?.keyName ?? ''} may not use`,
        'messages',
      );
    }
    if (span.recording)
      span.setAttributes({
        'autotier.requested_tier': asked,
        'autotier.tier': planned.plan.tier,
        'autotier.rules': [...rules, ...planned.rules].map(toTierChangeLabel),
        'autotier.group': planned.plan.group.map((deployment) => deployment.id),
        'autotier.fallback_chain': planned.plan.fallback.map((deployment) => deployment.id),
        'autotier.max_tokens': planned.maxTokens,
      });
    return { tier, planned };
  });
  return {
    complexity: classification?.tier ?? auto?.ruleTier ?? target.tier,
    cause: classification?.cause ?? (auto?.ruleTier === undefined ? 'override' : 'rule'),
    confidence: classification?.confidence,
    classification,
    promptTokens,
    promptTokensEstimated: count.estimated,
    uncountedParts: count.uncountedParts ?? 0,
    plan: planned.plan,
    tierConfig: planned.tierConfig,
    maxTokens: planned.maxTokens,
    rules: [...rules, ...planned.rules],
    sessionTier:
      input.hints.sessionKey === undefined
        ? undefined
        : maxTier(tier, isTier(planned.plan.tier) ? planned.plan.tier : tier),
    sessionKey: input.hints.sessionKey,
  };
}

/** Resolves the model field (auto, tier alias, served name), classifies if needed, and applies every rule. */
export async function decideRoute(input: DecideInput): Promise<RouteDecision> {
  return planClassified(input, await classifyRoute(input));
}
