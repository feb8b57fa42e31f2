import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RequestObserver } from './request-summary.js';

/** Latency buckets in seconds: 5 ms to 5 minutes (LLM requests span that range). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const STAGE_BUCKETS = [0.00001, 0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1];

export interface Metrics {
  registry: Registry;
  observer: RequestObserver;
  /** A deployment was benched. */
  cooldown(deploymentId: string, reason: string): void;
  /** A background health probe of a benched deployment ended: `healthy` = a 2xx within its timeout. */
  healthProbe(deploymentId: string, outcome: 'healthy' | 'unhealthy'): void;
  /** A broken answer was continued on another deployment, or could not be (`outcome`). */
  continuation(outcome: string): void;
  /** A shared-state (Redis) call failed. */
  stateError(operation: string): void;
  /** A routing table reload was applied or refused. */
  tableReload(outcome: 'applied' | 'rejected'): void;
  /** Entries a capped per-client map dropped to stay under its cap (`sessions`, `classification`, ...). */
  cacheEvicted(cache: string, count: number): void;
  /** Reads in-flight counts per deployment at scrape time. */
  setInFlightSource(source: () => Promise<ReadonlyMap<string, number>>): void;
}

/** The endpoints whose requests are routed to a deployment (tier EMBEDDINGS for embeddings). */
const ROUTED_ENDPOINTS: ReadonlySet<string> = new Set(['chat', 'completions', 'embeddings', 'responses']);

/** Prometheus metrics on a registry of this instance (never prom-client's global one). */
export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false)
    collectDefaultMetrics({ register: registry, prefix: 'autotier_process_' });
  const registers = [registry];
  const requests = new Counter({
    name: 'autotier_requests_total',
    help: 'Requests by tier, classifier cause and HTTP status',
    labelNames: ['tier', 'cause', 'status', 'endpoint'],
    registers,
  });
  const rejected = new Counter({
    name: 'autotier_rejected_requests_total',
    help: 'Requests autotier answered itself before or instead of routing them, by error code and endpoint',
    labelNames: ['code', 'endpoint'],
    registers,
  });
  /**
   * Time in each stage of the request pipeline, as a sum and a count per stage and endpoint (their
   * ratio is the mean): nine stages per request make a histogram's per-observation work show in the
   * CPU per request, so the totals are kept in plain numbers and handed over at scrape time.
   */
  interface StageTotal {
    stage: string;
    endpoint: string;
    seconds: number;
    runs: number;
  }
  const stageTotals = new Map<string, Map<string, StageTotal>>();
  const allTotals = function* (): Generator<StageTotal> {
    for (const byEndpoint of stageTotals.values()) yield* byEndpoint.values();
  };
  new Counter({
    name: 'autotier_request_stage_seconds_total',
    help: "Time spent in each stage of the request pipeline (a stream's answer stage ends when it commits)",
    labelNames: ['stage', 'endpoint'],
    registers,
    collect() {
      this.reset();
      for (const total of allTotals())
        this.inc({ stage: total.stage, endpoint: total.endpoint }, total.seconds);
    },
  });
  new Counter({
    name: 'autotier_request_stage_runs_total',
    help: 'Runs of each stage of the request pipeline',
    labelNames: ['stage', 'endpoint'],
    registers,
    collect() {
      this.reset();
      for (const total of allTotals()) this.inc({ stage: total.stage, endpoint: total.endpoint }, total.runs);
    },
  });
  const attempts = new Counter({
    name: 'autotier_upstream_attempts_total',
    help: 'Upstream attempts by deployment and outcome',
    labelNames: ['deployment', 'outcome'],
    registers,
  });
  const ttft = new Histogram({
    name: 'autotier_ttft_seconds',
    help: 'Time to first content token',
    labelNames: ['tier', 'deployment'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const duration = new Histogram({
    name: 'autotier_request_duration_seconds',
    help: 'Whole request duration',
    labelNames: ['tier', 'deployment'],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const stage = new Histogram({
    name: 'autotier_classifier_stage_seconds',
    help: 'Classifier stage latency',
    labelNames: ['stage'],
    buckets: STAGE_BUCKETS,
    registers,
  });
  const classifications = new Counter({
    name: 'autotier_classifications_total',
    help: 'Classified requests by cause, and whether the LLM was called',
    labelNames: ['cause', 'llm_called'],
    registers,
  });
  const fallbacks = new Counter({
    name: 'autotier_fallbacks_total',
    help: 'Attempts on a fallback-chain deployment',
    labelNames: ['tier'],
    registers,
  });
  const cooldowns = new Counter({
    name: 'autotier_cooldowns_total',
    help: 'Deployments benched, by reason',
    labelNames: ['deployment', 'reason'],
    registers,
  });
  const healthProbes = new Counter({
    name: 'autotier_health_probes_total',
    help: 'Background health probes of benched deployments, by outcome (healthy = a 2xx within timeout_ms)',
    labelNames: ['deployment', 'outcome'],
    registers,
  });
  const continuations = new Counter({
    name: 'autotier_continuations_total',
    help: 'Streams that broke after their first token, by what happened: continued on another deployment, failed, no_deployment or unsound (inside reasoning or a tool call)',
    labelNames: ['outcome'],
    registers,
  });
  const stateErrors = new Counter({
    name: 'autotier_state_errors_total',
    help: 'Failed shared-state (Redis) calls',
    labelNames: ['operation'],
    registers,
  });
  const tokens = new Counter({
    name: 'autotier_tokens_total',
    help: 'Tokens by tier, kind and how sure the count is',
    labelNames: ['tier', 'kind', 'status'],
    registers,
  });
  const reloads = new Counter({
    name: 'autotier_table_reloads_total',
    help: 'Routing table reloads by outcome (a rejected one leaves the previous table serving)',
    labelNames: ['outcome'],
    registers,
  });
  const evictions = new Counter({
    name: 'autotier_cache_evictions_total',
    help: 'Entries dropped from a capped cache or per-client map, least recently used first',
    labelNames: ['cache'],
    registers,
  });
  let inFlightSource: (() => Promise<ReadonlyMap<string, number>>) | undefined;
  new Gauge({
    name: 'autotier_in_flight',
    help: 'Requests in flight per deployment',
    labelNames: ['deployment'],
    registers,
    async collect() {
      if (inFlightSource === undefined) return;
      this.reset();
      for (const [deployment, count] of await inFlightSource()) this.set({ deployment }, count);
    },
  });
  const observer: RequestObserver = {
    onAttempt(attempt) {
      attempts.inc({ deployment: attempt.deploymentId, outcome: attempt.outcome });
      if (attempt.called && attempt.fallback) fallbacks.inc({ tier: attempt.tier });
    },
    onStage(timing) {
      // one entry per stage and endpoint (both fixed lists)
      let byEndpoint = stageTotals.get(timing.stage);
      if (byEndpoint === undefined) {
        byEndpoint = new Map();
        stageTotals.set(timing.stage, byEndpoint);
      }
      let total = byEndpoint.get(timing.endpoint);
      if (total === undefined) {
        total = { stage: timing.stage, endpoint: timing.endpoint, seconds: 0, runs: 0 };
        byEndpoint.set(timing.endpoint, total);
      }
      total.seconds += timing.ms / 1000;
      total.runs += 1;
    },
    onRequest(summary) {
      if (summary.outcome === 'rejected')
        rejected.inc({ code: summary.errorCode ?? 'none', endpoint: summary.endpoint });
      // autotier_requests_total keeps its meaning: requests to the routed endpoints.
      if (!ROUTED_ENDPOINTS.has(summary.endpoint)) return;
      const tier = summary.tier ?? 'none';
      requests.inc({
        tier,
        cause: summary.cause ?? 'none',
        status: String(summary.status),
        endpoint: summary.endpoint,
      });
      if (summary.cause !== undefined && summary.cause !== 'override' && summary.complexity !== undefined)
        classifications.inc({ cause: summary.cause, llm_called: String(summary.llmCalled) });
      for (const [name, milliseconds] of Object.entries(summary.classifierMs))
        if (milliseconds !== undefined) stage.observe({ stage: name }, milliseconds / 1000);
      if (summary.deployment === undefined) return;
      const labels = { tier, deployment: summary.deployment };
      if (summary.ttftMs !== undefined) ttft.observe(labels, summary.ttftMs / 1000);
      duration.observe(labels, summary.durationMs / 1000);
      if (summary.promptTokens !== undefined)
        tokens.inc(
          { tier, kind: 'prompt', status: summary.promptTokenStatus ?? 'estimated' },
          summary.promptTokens,
        );
      if (summary.completionTokens !== undefined)
        tokens.inc({ tier, kind: 'completion', status: summary.tokenStatus }, summary.completionTokens);
    },
  };
  return {
    registry,
    observer,
    cooldown: (deploymentId, reason) => cooldowns.inc({ deployment: deploymentId, reason }),
    healthProbe: (deploymentId, outcome) => healthProbes.inc({ deployment: deploymentId, outcome }),
    continuation: (outcome) => continuations.inc({ outcome }),
    stateError: (operation) => stateErrors.inc({ operation }),
    tableReload: (outcome) => reloads.inc({ outcome }),
    cacheEvicted: (cache, count) => evictions.inc({ cache }, count),
    setInFlightSource: (source) => {
      inFlightSource = source;
    },
  };
}
