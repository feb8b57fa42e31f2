import type { RoutePlan } from '../balance/route-plan.js';
import { toChatDeployments } from '../config/deployment-kinds.js';
import type { RoutingTable } from '../config/routing-table-schema.js';
import type { DeploymentConfig } from '../config/table-part-schemas.js';
import { toAvailabilityState, type AvailabilityChecker } from '../policy/availability.js';
import { toMaxTokens } from '../routing/plan-route.js';
import { toDeploymentTokens, type TokenCounter } from '../policy/token-counter.js';
import { toTokenizerNames } from '../tokenizers/tokenizer-name.js';
import type { CancelSignal } from '../shared/cancel-signal.js';
import { RouterError } from '../shared/errors.js';
import type { CompletionRequest } from './chat-request.js';
import { toLargestWindow, toUnclassifiedDecision, type RouteDecision } from '../routing/decide-route.js';

export interface CompletionRouteInput {
  table: RoutingTable;
  request: CompletionRequest;
  tokenCounter: TokenCounter;
  checker: AvailabilityChecker;
  now: number;
  signal: CancelSignal;
}

/**
 * Route of a legacy completion (tab autocomplete): the `autocomplete` group (else SIMPLE's), its own
 * tight timeouts, no classification at all; deployments that cannot hold the prompt are left out.
 */
export async function toCompletionDecision(input: CompletionRouteInput): Promise<RouteDecision> {
  const { table, request } = input;
  const tierConfig = table.autocomplete ?? table.tiers.SIMPLE;
  const prompts = Array.isArray(request.prompt) ? request.prompt : [request.prompt];
  // the server answers every prompt of the array on its own: each is counted with the suffix, and
  // the request's prompt tokens are their sum
  const suffix = request.suffix ?? '';
  const counts = await input.tokenCounter.countTexts(
    prompts.map((prompt) => (suffix === '' ? prompt : `${prompt}\n${suffix}`)),
    {
      tokenizers: toTokenizerNames(toChatDeployments(table.deployments)),
      safetyMargin: table.tokens.safety_margin,
      stopAbove: toLargestWindow(table),
      signal: input.signal,
    },
  );
  const count = counts.largest;
  const promptTokens = counts.sum.tokens;
  const maxTokens = toMaxTokens(tierConfig, request.max_tokens ?? undefined);
  const { unavailable } = toAvailabilityState({ table, checker: input.checker, now: input.now });
  const byId = new Map(table.deployments.map((deployment) => [deployment.id, deployment]));
  const eligible = (ids: readonly string[]): DeploymentConfig[] =>
    ids
      .map((id) => byId.get(id))
      .filter(
        (deployment): deployment is DeploymentConfig =>
          deployment !== undefined &&
          !unavailable.has(deployment.id) &&
          deployment.context_window >= toDeploymentTokens(count, deployment) + maxTokens,
      );
  const plan: RoutePlan = {
    tier: 'AUTOCOMPLETE',
    group: eligible(tierConfig.group),
    fallback: eligible(tierConfig.fallback),
    strategy: tierConfig.strategy,
    timeouts: tierConfig.timeouts,
    retryInPlace: tierConfig.retry_in_place,
  };
  if (plan.group.length === 0 && plan.fallback.length === 0) {
    throw new RouterError({
      code: 'CONTEXT_LENGTH_EXCEEDED',
      message: `no autocomplete deployment is available for ${count.tokens} prompt tokens + max_tokens ${maxTokens}`,
      param: 'prompt',
    });
  }
  const rules = [
    {
      rule: 'autocomplete',
      from: 'completions',
      to: 'AUTOCOMPLETE',
      reason:
        table.autocomplete === undefined ? 'no autocomplete group: SIMPLE serves' : 'autocomplete group',
    },
  ];
  return toUnclassifiedDecision({
    cause: 'rule',
    promptTokens,
    promptTokensEstimated: counts.sum.estimated,
    plan,
    tierConfig,
    maxTokens,
    rules,
  });
}
