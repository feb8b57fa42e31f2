import type { RoutingTable } from '../config/routing-table-schema.js';
import { RouterError, withInternalNames } from '../shared/errors.js';
import { runAttemptLoop } from './attempt-loop.js';
import type { Balancer, ExecuteRequest, ExecuteResult } from './balancer.js';
import { createBalancerPolicy, type BalancerPolicy } from './balancer-policy.js';
import type { BalancerOptions, Parts } from './balancer-run.js';
import { settleFaults } from './balancer-faults.js';
import { createDeploymentHealth } from './create-deployment-health.js';
import { createQuotaGate } from './deployment-quota.js';
import { createFaultMemory } from './fault-memory.js';
import { toInternalNames } from './internal-names.js';
import { startRun } from './request-run.js';

export type { BalancerOptions } from './balancer-run.js';

/**
 * Builds the shared books (quotas, deployment health, fault memory) and the policy of the table in
 * force, and runs each request through the attempt loop (attempt-loop.ts): the group, then the
 * fallback chain, with the retries, cooldowns and backoff the policy (balancer-policy.ts) decides.
 */
export function createBalancer(options: BalancerOptions): Balancer {
  const policy = policyOfTable(options);
  const quotas = createQuotaGate(options);
  const health = createDeploymentHealth({ ...options, quotas, policy });
  const faults = createFaultMemory({ clock: options.clock });
  const parts: Parts = { ...options, quotas, health, faults, policy };
  /** The table's deployment hosts, computed once per table (reloads bring a new object). */
  const names = new WeakMap<RoutingTable, readonly string[]>();
  const internalNames = (table: RoutingTable): readonly string[] => {
    let found = names.get(table);
    if (found === undefined) names.set(table, (found = toInternalNames(table.deployments)));
    return found;
  };
  const named = (error: unknown): unknown =>
    error instanceof RouterError ? withInternalNames(error, internalNames(parts.table())) : error;
  return {
    // the error that ends a request, before or after its commit point, carries the table's hosts, so a
    // non-admin key never sees them
    execute: (request) =>
      execute(parts, request).then(
        (result) => ({ ...result, rest: withNamedErrors(result.rest, named) }),
        (error: unknown) => {
          throw named(error);
        },
      ),
  };
}

/** The policy of the table in force, built once per table (reloads bring a new object). */
function policyOfTable(options: BalancerOptions): () => BalancerPolicy {
  const create = options.createPolicy ?? createBalancerPolicy;
  const policies = new WeakMap<RoutingTable, BalancerPolicy>();
  return () => {
    const table = options.table();
    let found = policies.get(table);
    if (found === undefined) policies.set(table, (found = create(table.balancer)));
    return found;
  };
}

/** The events after the commit point, with an error that breaks them passed through `named`. */
async function* withNamedErrors<T>(
  rest: AsyncIterable<T>,
  named: (error: unknown) => unknown,
): AsyncIterable<T> {
  try {
    yield* rest;
  } catch (error) {
    throw named(error);
  }
}

/** Runs the request, then settles the 5xx it held (whose fault they were) however it ended. */
async function execute(parts: Parts, request: ExecuteRequest): Promise<ExecuteResult> {
  const run = startRun(request);
  let answeredBy: string | undefined;
  try {
    const result = await runAttemptLoop(parts, run);
    answeredBy = result.deployment.id;
    return result;
  } finally {
    await settleFaults(parts, run, answeredBy);
  }
}
