import type { LoadedTable } from '../config/load-routing-table.js';
import type { Logger } from '../shared/logger.js';
import type { Clock } from '../shared/clock.js';
import { TIERS } from '../shared/tier.js';
import { readDeploymentKey } from '../upstream/deployment-key.js';
import type { ClassifierConfig } from '../config/routing-table-schema.js';
import { createCascadeClassifier, type LlmDecisionEvent } from './cascade-classifier.js';
import type { CascadeCombination, CascadeGate } from './cascade-decision.js';
import { toNeighbourConfusion } from './combine-with-verdict.js';
import { createCircuitBreaker } from './circuit-breaker.js';
import { createClassificationCache } from './classification-cache.js';
import type { Classifier } from './decision.js';
import { createLlmStage, type LlmStage } from './llm-stage.js';
import { createLocalClassifier, type LocalClassifier } from './local-classifier.js';
import type { LocalModel } from './local-model.js';

export interface TableClassifierOptions {
  loaded: LoadedTable;
  model: LocalModel;
  /** prompts/classifier.md as read from disk. */
  promptTemplate: string;
  clock: Clock;
  logger: Logger;
  readSecret: (name: string) => string | undefined;
  now?: () => number;
  /** Told how many entries the classification cache dropped to stay under `max_entries` (metrics). */
  onCacheEvict?: (count: number) => void;
  /** Told of each request the LLM stage decided (`classifier.learn`); must not block. */
  onLlmDecision?: (event: LlmDecisionEvent) => void;
}

/** The table's `disagreement` and `calibrated` settings as the cascade reads them. */
export function toCascadeCombination(config: ClassifierConfig): CascadeCombination {
  const { calibrated } = config;
  return {
    disagreement: config.disagreement,
    calibration: {
      confusion: calibrated.confusion ?? toNeighbourConfusion(calibrated.llm_accuracy),
      localWeight: calibrated.local_weight,
      underPenalty: calibrated.under_penalty,
    },
  };
}

/** The table's `gate` with its cutoff. */
export function toCascadeGate(config: ClassifierConfig): CascadeGate {
  return config.gate === 'value'
    ? { by: 'value', minValue: config.min_value }
    : { by: 'confidence', threshold: config.threshold };
}

/** Fills `{{SIMPLE_MODEL}}`-style placeholders; split/join, so `$` and braces in values stay literal. */
export function renderPrompt(template: string, values: Readonly<Record<string, string>>): string {
  let text = template;
  for (const [name, value] of Object.entries(values)) text = text.split(`{{${name}}}`).join(value);
  return text;
}

/**
 * One prompt per language and kind, classified once when a classifier is built: the first use of the
 * pattern sets and feature code otherwise cost the first `auto` request about 90 ms.
 */
const WARM_UP_PROMPTS = [
  'Prove that there are infinitely many primes. Use $\\sqrt{2}$ and \\frac{1}{2} if needed.',
  'Fix this bug:\n```ts\nconst total = items.reduce((sum, item) => sum + item.price, 0)\n```\nTypeError: undefined',
  '안녕하세요! 이 문서를 세 문장으로 요약해 주세요.',
  '请把这段话翻译成英文，并解释分布式系统中的一致性。',
  'この文章を要約して、キャッシュの設計について説明してください。',
];

function warmUp(local: LocalClassifier): void {
  for (const content of WARM_UP_PROMPTS)
    local.classifyLocal({
      messages: [
        { role: 'system', content: 'You are helpful.' },
        { role: 'user', content },
      ],
    });
}

/** The table's classifier LLM stage, or undefined when it names no classifier deployment. */
export function createTableLlmStage(
  options: Pick<TableClassifierOptions, 'loaded' | 'promptTemplate' | 'readSecret'>,
): LlmStage | undefined {
  const { table } = options.loaded;
  const config = table.classifier;
  const byId = new Map(table.deployments.map((deployment) => [deployment.id, deployment]));
  const modelOf = (tier: (typeof TIERS)[number]): string =>
    byId.get(table.tiers[tier].group[0] ?? '')?.model ?? tier;
  const systemPrompt = renderPrompt(
    options.promptTemplate,
    Object.fromEntries(TIERS.map((tier) => [`${tier}_MODEL`, modelOf(tier)])),
  );
  const deployment = config.deployment === undefined ? undefined : byId.get(config.deployment);
  if (deployment === undefined) return undefined;
  const apiKey = readDeploymentKey(deployment, options.readSecret);
  return createLlmStage({ deployment, systemPrompt, maxTokens: config.max_tokens, apiKey });
}

/** The classifier a routing table describes: mode, threshold, deadline, breaker and cache. */
export function createTableClassifier(options: TableClassifierOptions): Classifier {
  const config = options.loaded.table.classifier;
  const local = createLocalClassifier({ mode: 'local', model: options.model });
  warmUp(local);
  return createCascadeClassifier({
    mode: config.mode,
    local,
    llm: createTableLlmStage(options),
    breaker: createCircuitBreaker({
      clock: options.clock,
      failureThreshold: config.circuit_breaker.failures,
      openMs: config.circuit_breaker.open_ms,
    }),
    cache: createClassificationCache({
      clock: options.clock,
      maxEntries: config.cache.max_entries,
      ttlMs: config.cache.ttl_ms,
      ...(options.onCacheEvict === undefined ? {} : { onEvict: options.onCacheEvict }),
    }),
    threshold: config.threshold,
    gate: toCascadeGate(config),
    deadlineMs: config.deadline_ms,
    combination: toCascadeCombination(config),
    ...(options.onLlmDecision === undefined ? {} : { onLlmDecision: options.onLlmDecision }),
    clock: options.clock,
    now: options.now ?? (() => performance.now()),
    logger: options.logger,
  });
}
