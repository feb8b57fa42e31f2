import type { DeploymentConfig } from '../config/table-part-schemas.js';
import { createPeriodClock } from '../shared/period-clock.js';
import type { Clock } from '../shared/clock.js';
import type { StateStore } from '../state/state-store.js';

export interface QuotaGate {
  /**
   * Reserves one request and the prompt tokens on a deployment's RPM, TPM and per-day quotas before
   * dispatch (as LiteLLM's usage-based routing does). Returns why it is at its limit, or undefined.
   */
  reserve(deployment: DeploymentConfig, promptTokens: number): Promise<string | undefined>;
  /** Adds completion tokens, known only afterwards, to the TPM window. */
  recordCompletion(deployment: DeploymentConfig, completionTokens: number): Promise<void>;
}

const MINUTE_MS = 60_000;
/** A day's counter is kept a little longer than a day, ms. */
const DAY_TTL_MS = 26 * 3_600_000;

export function createQuotaGate(options: { store: StateStore; clock: Clock }): QuotaGate {
  const periods = createPeriodClock();
  const { store } = options;
  return {
    async reserve(deployment, promptTokens) {
      const limits = deployment.limits;
      if (limits === undefined) return undefined;
      const key = `deployment:${deployment.id}`;
      if (limits.rpd !== undefined) {
        const period = periods.toPeriodId({
          timezone: limits.timezone,
          reset: limits.daily_reset,
          kind: 'day',
          now: options.clock.now(),
        });
        const decision = await store.consumePeriod({
          key: `${key}:rpd`,
          period,
          amount: 1,
          limit: limits.rpd,
          ttlMs: DAY_TTL_MS,
          enforce: true,
        });
        if (!decision.allowed)
          return `QUOTA_EXHAUSTED requests per day (${limits.rpd}) until the ${limits.daily_reset} ${limits.timezone} reset`;
      }
      if (limits.rpm !== undefined) {
        const decision = await store.consumeWindow({
          key: `${key}:rpm`,
          amount: 1,
          limit: limits.rpm,
          windowMs: MINUTE_MS,
          enforce: true,
        });
        if (!decision.allowed)
          return `QUOTA_EXHAUSTED requests per minute (${limits.rpm}) for ${Math.ceil(decision.retryAfterMs / 1000)} s`;
      }
      if (limits.tpm !== undefined) {
        const decision = await store.consumeWindow({
          key: `${key}:tpm`,
          amount: promptTokens,
          limit: limits.tpm,
          windowMs: MINUTE_MS,
          enforce: true,
        });
        if (!decision.allowed)
          return `QUOTA_EXHAUSTED tokens per minute (${limits.tpm}) for ${Math.ceil(decision.retryAfterMs / 1000)} s`;
      }
      return undefined;
    },
    async recordCompletion(deployment, completionTokens) {
      if (deployment.limits?.tpm === undefined || completionTokens <= 0) return;
      await store.consumeWindow({
        key: `deployment:${deployment.id}:tpm`,
        amount: completionTokens,
        limit: deployment.limits.tpm,
        windowMs: MINUTE_MS,
        enforce: false,
      });
    },
  };
}
