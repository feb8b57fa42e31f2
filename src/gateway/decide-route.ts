import type { ClassificationDecision, Classifier } from '../classify/decision.js';
import type { DeploymentConfig, TierConfig } from '../config/routing-table-schema.js';
import type { RoutingTable } from '../config/table-schema.js';
import { planRoute, toMaxTokens, type RuleRecord } from '../policy/plan-route.js';
import type { TokenCounter } from '../policy/token-counter.js';
import type { RoutePlan } from '../balance/route-plan.js';
import { countImageParts, type ChatMessage } from '../shared/chat.js';
import { RouterError } from '../shared/errors.js';
import { isTier, TIERS, type Tier } from '../shared/tier.js';

/** Everything decided before the first upstream call; /v1/route returns it as is. */
export interface RouteDecision {
  complexity: Tier | undefined;
  cause: string;
  confidence: number | undefined;
  classification: ClassificationDecision | undefined;
  promptTokens: number;
  plan: RoutePlan;
  tierConfig: TierConfig;
  maxTokens: number;
  rules: RuleRecord[];
}

export interface DecideInput {
  table: RoutingTable;
  classifier: Classifier;
  tokenCounter: TokenCounter;
  request: {
    model: string;
    messages: readonly ChatMessage[];
    tools?: readonly unknown[] | null;
    maxTokens: number | undefined;
  };
  signal: AbortSignal;
}

const TIER_ALIAS = /^tier:(.+)$/i;

function hasImages(messages: readonly ChatMessage[]): boolean {
  return messages.some((message) => countImageParts(message.content) > 0);
}

/** Tier of a tier alias (`tier:COMPLEX`), or undefined for anything else. */
export function toAliasTier(model: string): Tier | undefined {
  const match = TIER_ALIAS.exec(model);
  const name = match?.[1]?.toUpperCase();
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

/** A concrete served model name: balance over its deployments only, never another model. */
function decideModel(input: DecideInput, promptTokens: number): RouteDecision | undefined {
  const { table, request } = input;
  const serving = table.deployments.filter(
    (deployment) => deployment.model === request.model || deployment.id === request.model,
  );
  if (serving.length === 0) return undefined;
  const tierName =
    TIERS.find((tier) => serving.some((deployment) => table.tiers[tier].group.includes(deployment.id))) ??
    'EXPERT';
  const tierConfig = table.tiers[tierName];
  const maxTokens = toMaxTokens(tierConfig, request.maxTokens);
  const fits = (deployment: DeploymentConfig): boolean =>
    deployment.context_window >= promptTokens + maxTokens;
  const group = serving.filter(fits);
  if (group.length === 0) {
    const widest = Math.max(...serving.map((deployment) => deployment.context_window));
    throw new RouterError({
      code: 'CONTEXT_LENGTH_EXCEEDED',
      message: `${promptTokens} prompt tokens + max_tokens ${maxTokens} exceed ${request.model}'s context window of ${widest} tokens`,
      param: 'messages',
    });
  }
  const plan: RoutePlan = {
    tier: tierName,
    group,
    fallback: [],
    strategy: tierConfig.strategy,
    timeouts: tierConfig.timeouts,
  };
  const rules = [
    { rule: 'override', from: 'auto', to: tierName, reason: `client asked for model ${request.model}` },
  ];
  return {
    complexity: undefined,
    cause: 'override',
    confidence: undefined,
    classification: undefined,
    promptTokens,
    plan,
    tierConfig,
    maxTokens,
    rules,
  };
}

/** Resolves the model field (auto, tier alias, served name), classifies if needed, and plans the route. */
export async function decideRoute(input: DecideInput): Promise<RouteDecision> {
  const { request } = input;
  const promptTokens = await input.tokenCounter.countChat({
    messages: request.messages,
    ...(request.tools ? { tools: request.tools } : {}),
  });
  const aliasTier = request.model === 'auto' ? undefined : toAliasTier(request.model);
  if (request.model !== 'auto' && aliasTier === undefined) {
    const decision = decideModel(input, promptTokens);
    if (decision !== undefined) return decision;
    throw new RouterError({
      code: 'MODEL_NOT_FOUND',
      message: `model "${request.model}" is not served here; use "auto", a tier alias or a model from /v1/models`,
      param: 'model',
    });
  }
  const classification =
    aliasTier === undefined
      ? await input.classifier.classify(
          { messages: request.messages, ...(request.tools ? { tools: request.tools } : {}) },
          input.signal,
        )
      : undefined;
  const tier = aliasTier ?? classification?.tier ?? 'EXPERT';
  const needsVision = hasImages(request.messages) || (classification?.needsVision ?? false);
  const planned = planRoute({
    table: input.table,
    tier,
    promptTokens,
    requestedMaxTokens: request.maxTokens,
    needsVision,
  });
  const rules: RuleRecord[] =
    aliasTier === undefined
      ? planned.rules
      : [
          { rule: 'override', from: 'auto', to: aliasTier, reason: `client asked for tier:${aliasTier}` },
          ...planned.rules,
        ];
  return {
    complexity: classification?.tier ?? aliasTier,
    cause: classification?.cause ?? 'override',
    confidence: classification?.confidence,
    classification,
    promptTokens,
    plan: planned.plan,
    tierConfig: planned.tierConfig,
    maxTokens: planned.maxTokens,
    rules,
  };
}
