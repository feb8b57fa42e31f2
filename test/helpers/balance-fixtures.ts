import {
  deploymentSchema,
  retryInPlaceSchema,
  type DeploymentConfig,
} from '../../src/config/table-part-schemas.js';
import { RouterError, type ErrorCode } from '../../src/shared/errors.js';
import type { AttemptRecord, RoutePlan } from '../../src/balance/route-plan.js';
import type { Candidate } from '../../src/balance/to-candidates.js';

/** A deployment with schema defaults; `context_window` 32768 unless given. */
export function deployment(id: string, overrides: Record<string, unknown> = {}): DeploymentConfig {
  return deploymentSchema.parse({
    id,
    model: 'sim-model',
    base_url: `http://${id}.invalid/v1`,
    context_window: 32_768,
    ...overrides,
  });
}

export function candidate(id: string, options: Partial<Omit<Candidate, 'deployment'>> = {}): Candidate {
  return { deployment: deployment(id), fallback: false, groupSize: 2, ...options };
}

export const TEST_TIMEOUTS = { connect_ms: 300, ttft_ms: 1200, idle_ms: 900, total_ms: 4000 };

/** The schema's defaults: one transient retry, 250 ms jitter, Retry-After waited up to 5000 ms. */
export const TEST_RETRY_IN_PLACE = retryInPlaceSchema.parse({});

export function plan(group: DeploymentConfig[], fallback: DeploymentConfig[] = []): RoutePlan {
  return {
    tier: 'SIMPLE',
    group,
    fallback,
    strategy: 'weighted',
    timeouts: TEST_TIMEOUTS,
    retryInPlace: TEST_RETRY_IN_PLACE,
  };
}

export function failure(
  code: ErrorCode,
  options: { retryable?: boolean; retryAfterSeconds?: number } = {},
): RouterError {
  return new RouterError({
    code,
    message: `${code} happened`,
    retryable: options.retryable ?? true,
    ...options,
  });
}

export function attempt(deploymentId: string, outcome: string, called = true): AttemptRecord {
  return { deploymentId, outcome, message: outcome.toLowerCase(), called, fallback: false, durationMs: 1 };
}
