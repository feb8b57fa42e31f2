import type { DeploymentConfig, TableTier, TierConfig } from '../config/table-part-schemas.js';
import type { RoutingTable } from '../config/routing-table-schema.js';
import type { RoutePlan } from '../balance/route-plan.js';
import { RouterError } from '../shared/errors.js';
import { TIERS, toTierRank, type Tier } from '../shared/tier.js';
import type { TierChange } from '../shared/tier-change.js';

export interface PlanInput {
  table: RoutingTable;
  /** The tier the classifier (or an alias) asked for. */
  tier: Tier;
  /** Prompt tokens as reported (the largest count over the tokenizers in use). */
  promptTokens: number;
  /** Prompt tokens under a deployment's own tokenizer, for its window; default: `promptTokens`. */
  promptTokensOf?: (deployment: DeploymentConfig) => number;
  /** max_tokens from the client, if any. */
  requestedMaxTokens: number | undefined;
  needsVision: boolean;
  /** Deployment ids not eligible right now (outside business hours, quota spent), with the reason. */
  unavailable?: ReadonlyMap<string, string>;
  /** Tiers outside their availability window: their `off_hours` group and fallback serve. */
  offHours?: ReadonlySet<TableTier>;
}

export interface PlannedRoute {
  plan: RoutePlan;
  tierConfig: TierConfig;
  /** max_tokens sent upstream: the client's value capped by the tier, or the tier default. */
  maxTokens: number;
  rules: TierChange[];
}

export function toMaxTokens(tierConfig: TierConfig, requested: number | undefined): number {
  return requested === undefined
    ? tierConfig.max_tokens.default
    : Math.min(requested, tierConfig.max_tokens.cap);
}

interface Eligibility {
  maxTokens: number;
  promptTokensOf: (deployment: DeploymentConfig) => number;
  needsVision: boolean;
  unavailable: ReadonlyMap<string, string>;
}

/** Prompt plus max_tokens, counted with the deployment's tokenizer, within its window. */
function fits(deployment: DeploymentConfig, eligibility: Eligibility): boolean {
  return deployment.context_window >= eligibility.promptTokensOf(deployment) + eligibility.maxTokens;
}

function isEligible(deployment: DeploymentConfig, eligibility: Eligibility): boolean {
  if (eligibility.unavailable.has(deployment.id)) return false;
  if (eligibility.needsVision && !deployment.vision) return false;
  return fits(deployment, eligibility);
}

function toDeployments(table: RoutingTable, ids: readonly string[]): DeploymentConfig[] {
  const byId = new Map(table.deployments.map((deployment) => [deployment.id, deployment]));
  return ids.map((id) => byId.get(id)).filter((value): value is DeploymentConfig => value !== undefined);
}

/** Candidate tiers for a request: the asked tier and every tier above it, then VISION for images. */
function toCandidateTiers(tier: Tier, needsVision: boolean): TableTier[] {
  const above: TableTier[] = TIERS.filter((candidate) => toTierRank(candidate) >= toTierRank(tier));
  return needsVision ? [...above, 'VISION'] : above;
}

/**
 * Turns a complexity into a tier and its eligible deployments: vision moves up to the lowest tier
 * with a vision deployment (never down), and a prompt that fits no deployment of a tier's group moves
 * up to the lowest tier where it fits. A group that fits but sleeps (business hours) keeps the tier
 * and leaves the request to its fallback chain. Nothing fits: CONTEXT_LENGTH_EXCEEDED with the numbers.
 */
export function planRoute(input: PlanInput): PlannedRoute {
  const unavailable = input.unavailable ?? new Map<string, string>();
  const rules: TierChange[] = [];
  let widest: DeploymentConfig | undefined;
  let sawVision = false;
  let maxTokens = 0;
  for (const name of toCandidateTiers(input.tier, input.needsVision)) {
    const tierConfig = input.table.tiers[name];
    if (tierConfig === undefined) continue;
    maxTokens = toMaxTokens(tierConfig, input.requestedMaxTokens);
    const eligibility = {
      maxTokens,
      promptTokensOf: input.promptTokensOf ?? ((): number => input.promptTokens),
      needsVision: input.needsVision,
      unavailable,
    };
    const shift = input.offHours?.has(name) === true ? tierConfig.off_hours : undefined;
    const members = toDeployments(input.table, shift?.group ?? tierConfig.group);
    const group = members.filter((deployment) => isEligible(deployment, eligibility));
    const fallback = toDeployments(input.table, shift?.fallback ?? tierConfig.fallback).filter((deployment) =>
      isEligible(deployment, eligibility),
    );
    sawVision ||= members.some((deployment) => deployment.vision);
    for (const deployment of members)
      if (!input.needsVision || deployment.vision)
        if (deployment.context_window > (widest?.context_window ?? 0)) widest = deployment;
    const fitting = members.filter((deployment) =>
      isEligible(deployment, Object.assign({}, eligibility, { unavailable: new Map<string, string>() })),
    );
    if (fitting.length === 0 || (group.length === 0 && fallback.length === 0)) {
      rules.push(toSkipRule({ from: name, members, eligibility, needsVision: input.needsVision }));
      continue;
    }
    if (shift !== undefined) {
      rules.push({
        rule: 'business_hours',
        from: name,
        to: name,
        reason: `tier ${name} is off hours: its off_hours group serves`,
      });
    }
    const asleep = members.filter((deployment) => unavailable.has(deployment.id));
    if (asleep.length > 0) {
      const reasons = asleep.map(
        (deployment) => `${deployment.id} ${unavailable.get(deployment.id) ?? 'unavailable'}`,
      );
      rules.push({
        rule: 'availability',
        from: name,
        to: name,
        reason: `${reasons.join('; ')}${group.length === 0 ? ': fallback chain serves' : ''}`,
      });
    }
    const plan: RoutePlan = {
      tier: name,
      group,
      fallback,
      strategy: tierConfig.strategy,
      timeouts: tierConfig.timeouts,
      retryInPlace: tierConfig.retry_in_place,
    };
    return {
      plan,
      tierConfig,
      maxTokens,
      rules: rules.map((rule, index) =>
        rule.to !== '' ? rule : Object.assign({}, rule, { to: rules[index + 1]?.from ?? name }),
      ),
    };
  }
  throw toNoRouteError({ input, widest, sawVision, maxTokens });
}

function toSkipRule(skip: {
  from: TableTier;
  members: DeploymentConfig[];
  eligibility: Eligibility;
  needsVision: boolean;
}): TierChange {
  const { eligibility } = skip;
  if (skip.needsVision && !skip.members.some((deployment) => deployment.vision)) {
    return {
      rule: 'vision',
      from: skip.from,
      to: '',
      reason: 'request has images and this tier has no vision deployment',
    };
  }
  if (!skip.members.some((deployment) => fits(deployment, eligibility))) {
    const widest = skip.members.reduce((best, deployment) =>
      deployment.context_window > best.context_window ? deployment : best,
    );
    const needed = eligibility.promptTokensOf(widest) + eligibility.maxTokens;
    return {
      rule: 'context_length',
      from: skip.from,
      to: '',
      reason: `needs ${needed} tokens, largest window here is ${widest.context_window}`,
    };
  }
  const reasons = skip.members.map(
    (deployment) => `${deployment.id}: ${eligibility.unavailable.get(deployment.id) ?? 'not eligible'}`,
  );
  return { rule: 'availability', from: skip.from, to: '', reason: reasons.join('; ') };
}

function toNoRouteError(failure: {
  input: PlanInput;
  widest: DeploymentConfig | undefined;
  sawVision: boolean;
  maxTokens: number;
}): RouterError {
  const { input } = failure;
  if (input.needsVision && !failure.sawVision) {
    return new RouterError({
      code: 'NO_VISION_DEPLOYMENT',
      message: `the request contains images, but no vision-capable deployment serves tier ${input.tier} or above`,
      param: 'messages',
    });
  }
  const { widest } = failure;
  const promptTokens = widest === undefined ? 0 : (input.promptTokensOf?.(widest) ?? input.promptTokens);
  const needed = promptTokens + failure.maxTokens;
  if (widest !== undefined && needed > widest.context_window) {
    return new RouterError({
      code: 'CONTEXT_LENGTH_EXCEEDED',
      message: `the prompt is about ${promptTokens} tokens and max_tokens is ${failure.maxTokens}: ${needed} tokens exceed the largest context window of ${widest.context_window} tokens`,
      param: promptTokens > widest.context_window ? 'messages' : 'max_tokens',
    });
  }
  return new RouterError({
    code: 'ALL_DEPLOYMENTS_FAILED',
    message: `no deployment is available for tier ${input.tier} or above right now`,
  });
}
