import type { DeploymentConfig } from '../config/table-part-schemas.js';
import type { CancelSignal } from '../shared/cancel-signal.js';
import type { Span } from '../shared/tracing.js';
import type { UpstreamEvent } from '../upstream/upstream.js';
import type { ContinuationRecord } from './relabel-continuation.js';
import type { AttemptRecord, RoutePlan } from './route-plan.js';
import type { CommitPoint } from './run-attempt.js';

export interface ExecuteRequest {
  plan: RoutePlan;
  path: string;
  /** The path of one deployment, when it differs per deployment (Responses natively or as chat). @default path */
  toPath?: (deployment: DeploymentConfig) => string;
  /** The upstream body for one deployment (model name, extra body and stream flags applied). */
  toBody: (deployment: DeploymentConfig) => string;
  signal: CancelSignal;
  requestId: string;
  commit: CommitPoint;
  /** The upstream answers with an SSE stream, or with one JSON body (embeddings). @default sse */
  answer?: 'sse' | 'json';
  /** Epoch ms when the request arrived; the tier's total_ms counts from here. */
  startedAt: number;
  /** Prompt tokens, reserved on deployments with a TPM quota. */
  promptTokens: number;
  /** The request's span: each upstream call gets a client span under it. @default NO_SPAN */
  span?: Span;
  /**
   * The upstream body that continues a broken answer on `deployment`: the conversation plus `prefix`
   * as a final assistant message (`continue_final_message`), with max_tokens lowered by the
   * `completionTokens` already spent. Absent when the request cannot be continued (legacy
   * completions, several choices, structured output).
   */
  toContinuationBody?: (deployment: DeploymentConfig, delivered: ContinuationPrefix) => string;
}

/** The answer text a continuation starts from, and the completion tokens spent on it. */
export interface ContinuationPrefix {
  prefix: string;
  completionTokens: number;
}

/** How an attempt to continue a broken answer ended (the `outcome` label of the metric). */
export type ContinuationOutcome = 'continued' | 'failed' | 'no_deployment' | 'unsound';

/** What is reported about each attempt to continue a broken answer. */
export interface ContinuationEvent {
  requestId: string;
  tier: string;
  outcome: ContinuationOutcome;
  /** The deployment whose stream broke, and the break's error code. */
  from: string;
  error: string;
  /** The deployment that continued (outcome `continued`). */
  to?: string;
  /** Why it was not continued (`unsound`, `no_deployment`, `failed`). */
  detail?: string;
  deliveredTokens: number;
}

export interface ExecuteResult {
  deployment: DeploymentConfig;
  attempts: readonly AttemptRecord[];
  /** Attempts made on deployments of the fallback chain. */
  fallbacks: number;
  /** Time spent waiting on upstreams before the commit point, ms. */
  upstreamMs: number;
  ttftMs: number;
  /** Epoch ms of the first content token of the answering attempt. */
  firstTokenAt: number;
  head: readonly UpstreamEvent[];
  /**
   * Switches of a broken answer to another deployment (continuation), in order; for a stream it grows
   * while `rest` is read.
   */
  continuations: readonly ContinuationRecord[];
  /** Events after the commit point, in arrival batches; iterate it to the end or call `cancel()`. */
  rest: AsyncIterable<UpstreamEvent[]>;
  cancel(): void;
}

/** Sends one routed request to a deployment of its plan, failing over and retrying within the tier's budget. */
export interface Balancer {
  execute(request: ExecuteRequest): Promise<ExecuteResult>;
}
