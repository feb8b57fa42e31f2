import type { LoadedTable } from '../config/load-routing-table.js';
import type { StateStore } from '../state/state-store.js';
import type { ActivitySnapshot } from './recent-activity.js';

/** Table reloads since start, and the last one refused. */
export interface ReloadHistory {
  applied: number;
  rejected: number;
  lastRejection:
    { at: number; file: string; problems: readonly { path: string; message: string }[] } | undefined;
}

export interface StateReportInput {
  loaded: LoadedTable;
  store: StateStore;
  activity: ActivitySnapshot;
  reloads?: ReloadHistory;
  now: number;
  /** Shared-state health, when a shared store is configured. */
  sharedState: { kind: 'memory' | 'redis'; degraded: boolean; errors: number };
}

/** GET /autotier/state: each deployment's health, cooldown, in-flight, latency and recent errors. */
export async function toStateReport(input: StateReportInput): Promise<Record<string, unknown>> {
  const { table } = input.loaded;
  const ids = table.deployments.map((deployment) => deployment.id);
  const [cooldowns, inFlight, latencies] = await Promise.all([
    input.store.getCooldowns(ids),
    input.store.getInFlight(ids),
    input.store.getLatencies(ids),
  ]);
  const deployments = table.deployments.map((deployment) => {
    const cooldown = cooldowns.get(deployment.id);
    const health =
      cooldown === undefined ? 'healthy' : input.now < cooldown.until ? 'cooling_down' : 'half_open';
    return {
      id: deployment.id,
      model: deployment.model,
      base_url: deployment.base_url,
      health,
      cooldown:
        cooldown === undefined
          ? null
          : {
              until: new Date(cooldown.until).toISOString(),
              reason: cooldown.reason,
              consecutive_failures: cooldown.failures,
            },
      in_flight: inFlight.get(deployment.id) ?? 0,
      max_concurrency: deployment.max_concurrency,
      ttft_ewma_ms: latencies.get(deployment.id) ?? null,
      recent_errors: input.activity.recentErrors[deployment.id] ?? {},
    };
  });
  return {
    routing_table: {
      source: input.loaded.source,
      version: input.loaded.version,
      loaded_at: new Date(input.loaded.loadedAt).toISOString(),
      warnings: input.loaded.warnings,
      reloads_applied: input.reloads?.applied ?? 0,
      reloads_rejected: input.reloads?.rejected ?? 0,
      last_rejected_reload: toRejectionReport(input.reloads?.lastRejection),
    },
    classifier: { mode: table.classifier.mode, deployment: table.classifier.deployment ?? null },
    shared_state: input.sharedState,
    recent_window_ms: input.activity.windowMs,
    deployments,
  };
}

function toRejectionReport(rejection: ReloadHistory['lastRejection']): Record<string, unknown> | null {
  if (rejection === undefined) return null;
  return {
    at: new Date(rejection.at).toISOString(),
    file: rejection.file,
    problems: rejection.problems.map((problem) => ({ path: problem.path, message: problem.message })),
  };
}
