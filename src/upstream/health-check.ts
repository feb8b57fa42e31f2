import type { DeploymentConfig } from '../config/table-part-schemas.js';
import type { CancelSignal } from '../shared/cancel-signal.js';

/** The probe kinds that send a request (`none` sends nothing). */
export type ProbeKind = Exclude<DeploymentConfig['health_probe'], 'none'>;

export interface HealthCheckRequest {
  deployment: DeploymentConfig;
  kind: ProbeKind;
  /** Time the probe may take, response body included, in ms. */
  timeoutMs: number;
  /** Aborts the probe (the prober stopping); an aborted probe reports unhealthy. */
  signal?: CancelSignal;
}

export interface HealthCheckResult {
  /** True on a 2xx answer within the timeout, false otherwise. */
  healthy: boolean;
  /** Why not (or `status 200`): `status 503`, `timeout`, or the connection error's code. No secrets, no hosts. */
  detail: string;
}

/** Checks whether a deployment answers; implemented over HTTP in create-http-health-check.ts. */
export interface HealthCheck {
  check(request: HealthCheckRequest): Promise<HealthCheckResult>;
  close(): Promise<void>;
}
