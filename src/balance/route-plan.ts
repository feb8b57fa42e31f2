import type { DeploymentConfig, RetryInPlaceConfig, TimeoutsConfig } from '../config/table-part-schemas.js';
import type { TableTier } from '../config/table-part-schemas.js';
import type { BalanceStrategy } from './order-group.js';

/** Where a request may go, decided by the policy layer before any upstream call. */
export interface RoutePlan {
  /** A table tier (SIMPLE ... EXPERT, VISION), AUTOCOMPLETE for legacy completions, EMBEDDINGS. */
  tier: TableTier | 'AUTOCOMPLETE' | 'EMBEDDINGS';
  /** Eligible members of the tier's group, balanced among themselves. */
  group: readonly DeploymentConfig[];
  /** Eligible deployments of the quality-ordered fallback chain, tried in order after the group. */
  fallback: readonly DeploymentConfig[];
  strategy: BalanceStrategy;
  timeouts: TimeoutsConfig;
  /** When a failed deployment is called again before a weaker one (the tier's `retry_in_place`). */
  retryInPlace: RetryInPlaceConfig;
}

/** One upstream attempt, or one candidate skipped without a call. */
export interface AttemptRecord {
  deploymentId: string;
  /** Error code of a failed attempt, or why the candidate was skipped. */
  outcome: string;
  message: string;
  /** False for candidates skipped without a call (cooling down, probe taken, full). */
  called: boolean;
  fallback: boolean;
  durationMs: number;
}
