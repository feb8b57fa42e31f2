import type { DeploymentConfig } from '../config/table-part-schemas.js';
import type { CancelSignal } from '../shared/cancel-signal.js';
import type { UpstreamEvent } from '../upstream/upstream.js';
import type { AttemptRecord, RoutePlan } from './route-plan.js';
import type { CommitPoint } from './run-attempt.js';

export interface ExecuteRequest {
  plan: RoutePlan;
  path: string;
  /** The upstream body for one deployment (model name, extra body and stream flags applied). */
  toBody: (deployment: DeploymentConfig) => string;
  signal: CancelSignal;
  requestId: string;
  commit: CommitPoint;
  /** Epoch ms when the request arrived; the tier's total_ms counts from here. */
  startedAt: number;
  /** Prompt tokens, reserved on deployments with a TPM quota. */
  promptTokens: number;
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
  /** Events after the commit point, in arrival batches; iterate it to the end or call `cancel()`. */
  rest: AsyncIterable<UpstreamEvent[]>;
  cancel(): void;
}

/** Sends one routed request to a deployment of its plan, failing over and retrying within the tier's budget. */
export interface Balancer {
  execute(request: ExecuteRequest): Promise<ExecuteResult>;
}
