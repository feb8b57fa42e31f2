import type { RoutePlan } from '../balance/route-plan.js';
import type { RoutingTable } from '../config/routing-table-schema.js';
import {
  tierSchema,
  type ApiKeyConfig,
  type DeploymentConfig,
  type EmbeddingsConfig,
  type TierConfig,
} from '../config/table-part-schemas.js';
import { toAvailabilityState, type AvailabilityChecker } from '../policy/availability.js';
import { toOverrideRefused } from '../policy/client-overrides.js';
import { toForbidden } from '../policy/key-access.js';
import type { TokenCounter } from '../policy/token-counter.js';
import { toTokenizerNames } from '../tokenizers/tokenizer-name.js';
import type { CancelSignal } from '../shared/cancel-signal.js';
import { RouterError } from '../shared/errors.js';
import { toUnclassifiedDecision, type RouteDecision } from '../routing/decide-route.js';
import { toInputParts, type EmbeddingRequest } from './embedding-request.js';

export interface EmbeddingsRouteInput {
  table: RoutingTable;
  request: EmbeddingRequest;
  key: ApiKeyConfig | undefined;
  /** Why client overrides are refused (`toOverridesDisabledBy`); undefined when allowed. */
  overridesDisabledBy: string | undefined;
  tokenCounter: TokenCounter;
  checker: AvailabilityChecker;
  now: number;
  signal: CancelSignal;
}

const tierConfigs = new WeakMap<EmbeddingsConfig, TierConfig>();

/** The embeddings group as the balancer's tier config (its max_tokens are never used). */
function toTierConfig(embeddings: EmbeddingsConfig): TierConfig {
  let config = tierConfigs.get(embeddings);
  if (config === undefined) {
    const { group, fallback, strategy, timeouts, retry_in_place, extra_body } = embeddings;
    config = tierSchema.parse({ group, fallback, strategy, timeouts, retry_in_place, extra_body });
    tierConfigs.set(embeddings, config);
  }
  return config;
}

function toModelNotFound(message: string): RouterError {
  return new RouterError({ code: 'MODEL_NOT_FOUND', message, param: 'model' });
}

/** Group and fallback members that serve the asked model (any for `auto`), in the table's order. */
function toServing(table: RoutingTable, embeddings: EmbeddingsConfig, model: string) {
  const byId = new Map(table.deployments.map((deployment) => [deployment.id, deployment]));
  const serves = (id: string): DeploymentConfig[] => {
    const deployment = byId.get(id);
    return deployment !== undefined &&
      (model === 'auto' || deployment.model === model || deployment.id === model)
      ? [deployment]
      : [];
  };
  return { group: embeddings.group.flatMap(serves), fallback: embeddings.fallback.flatMap(serves) };
}

/** The key may name this model (its `models` list), and overrides are allowed for a named model. */
function checkAccess(input: EmbeddingsRouteInput, served: readonly DeploymentConfig[]): void {
  const { model } = input.request;
  if (model === 'auto') return;
  if (input.overridesDisabledBy !== undefined)
    throw toOverrideRefused({
      asked: `model "${model}"`,
      param: 'model',
      disabledBy: input.overridesDisabledBy,
    });
  const allowed = input.key?.models;
  if (allowed !== undefined && !served.some((deployment) => allowed.includes(deployment.model)))
    throw toForbidden(`key ${input.key?.name ?? ''} may not use model ${model}`);
}

/** Prompt tokens of the inputs: text counted with the group's tokenizers, token ids as they are. */
async function countInputs(input: EmbeddingsRouteInput, served: readonly DeploymentConfig[]) {
  const { texts, tokenIds } = toInputParts(input.request.input);
  if (texts.length === 0) return { tokens: tokenIds, estimated: false };
  const count = await input.tokenCounter.countText(texts.join('\n'), {
    tokenizers: toTokenizerNames(served),
    safetyMargin: input.table.tokens.safety_margin,
    signal: input.signal,
  });
  return { tokens: count.tokens + tokenIds, estimated: count.estimated };
}

/**
 * Route of POST /v1/embeddings: the table's `embeddings` group, no classification. `auto` may use every
 * member; a model name only the members serving it (404 MODEL_NOT_FOUND when none does, or when the table
 * has no embeddings group). Members outside their availability windows are left out.
 */
export async function toEmbeddingsDecision(input: EmbeddingsRouteInput): Promise<RouteDecision> {
  const { table, request } = input;
  const { embeddings } = table;
  if (embeddings === undefined)
    throw toModelNotFound(
      `model "${request.model}" is not served: this routing table has no embeddings group, so /v1/embeddings serves no model`,
    );
  const serving = toServing(table, embeddings, request.model);
  const served = [...serving.group, ...serving.fallback];
  if (served.length === 0)
    throw toModelNotFound(
      `model "${request.model}" is not an embedding model served here; use "auto" or an embedding model from /v1/models`,
    );
  checkAccess(input, served);
  const { unavailable } = toAvailabilityState({ table, checker: input.checker, now: input.now });
  const available = (deployment: DeploymentConfig): boolean => !unavailable.has(deployment.id);
  const count = await countInputs(input, served);
  const plan: RoutePlan = {
    tier: 'EMBEDDINGS',
    group: serving.group.filter(available),
    fallback: serving.fallback.filter(available),
    strategy: embeddings.strategy,
    timeouts: embeddings.timeouts,
    retryInPlace: embeddings.retry_in_place,
  };
  return toUnclassifiedDecision({
    cause: request.model === 'auto' ? 'rule' : 'override',
    promptTokens: count.tokens,
    promptTokensEstimated: count.estimated,
    plan,
    tierConfig: toTierConfig(embeddings),
    maxTokens: 0,
    rules: [{ rule: 'embeddings', from: 'embeddings', to: 'EMBEDDINGS', reason: 'embeddings group' }],
  });
}
