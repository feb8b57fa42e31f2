import type { ExecuteRequest } from './balancer.js';
import type { BalancerPolicy } from './balancer-policy.js';
import type { DeploymentHealth } from './create-deployment-health.js';
import type { ContentFailure } from './decide-fault-owner.js';
import { toFingerprint, type FaultMemory } from './fault-memory.js';

/** What the fault books of a balancer need. */
export interface FaultParts {
  faults: FaultMemory;
  health: DeploymentHealth;
  /** The policy in force: whose fault a 5xx is, and when a request's content stops it. */
  policy: () => BalancerPolicy;
}

/** A 5xx whose verdict (the deployment's fault or the request's) waits for the end of the request. */
export interface HeldFailure extends ContentFailure {
  /** The same content had answered 5xx on this deployment in an earlier request. */
  repeatedHere: boolean;
}

/** The part of a request's run these books read and write. */
export interface FaultRun {
  request: ExecuteRequest;
  /** SHA-256 of the request content, made at its first use. */
  fingerprint?: string;
  held?: HeldFailure[];
}

/** SHA-256 of the request's upstream body as its group's first deployment would get it (made once). */
function fingerprintOf(run: FaultRun, fallbackBody: () => string): string {
  if (run.fingerprint !== undefined) return run.fingerprint;
  const { plan, path } = run.request;
  const first = plan.group[0] ?? plan.fallback[0];
  run.fingerprint = toFingerprint(path, first === undefined ? fallbackBody() : run.request.toBody(first));
  return run.fingerprint;
}

/**
 * Frees the deployment of a 5xx without benching it yet (`settleFaults` decides at the end of the
 * request) and notes the content's failure. Throws UPSTREAM_SERVER_ERROR, ending the request, when
 * the content has now failed on two deployments and was never answered.
 */
export async function holdServerError(
  parts: FaultParts,
  run: FaultRun,
  failure: ContentFailure,
): Promise<void> {
  const id = failure.candidate.deployment.id;
  const fingerprint = fingerprintOf(run, () => run.request.toBody(failure.candidate.deployment));
  const before = parts.faults.get(fingerprint);
  parts.faults.noteServerError(fingerprint, id);
  run.held = [...(run.held ?? []), { ...failure, repeatedHere: before?.deployments.includes(id) ?? false }];
  await parts.health.hold(failure.candidate);
  const failedDeployments = parts.faults.get(fingerprint)?.deployments.length ?? 1;
  const stop = parts
    .policy()
    .contentStop({ failure, answered: before?.answered ?? false, failedDeployments });
  if (stop !== undefined) throw stop;
}

/**
 * At the end of a request: notes the answer (a success on `answeredBy`), then benches each held
 * deployment whose 5xx `decideFaultOwner` puts on the deployment.
 */
export async function settleFaults(
  parts: FaultParts,
  run: FaultRun,
  answeredBy: string | undefined,
): Promise<void> {
  const { faults } = parts;
  if (answeredBy !== undefined) {
    faults.noteSuccess(answeredBy);
    if (faults.size() > 0) faults.noteAnswered(fingerprintOf(run, () => ''));
  }
  const held = run.held ?? [];
  run.held = [];
  const record = held.length === 0 ? undefined : faults.get(run.fingerprint ?? '');
  for (const failure of held) {
    const id = failure.candidate.deployment.id;
    const owner = parts.policy().faultOwner({
      answered: answeredBy !== undefined || (record?.answered ?? false),
      reproducedElsewhere: record?.deployments.some((other) => other !== id) ?? false,
      repeatedHere: failure.repeatedHere,
      failingContents: faults.failingContents(id),
    });
    if (owner === 'deployment') await parts.health.bench(failure.candidate, failure.error);
  }
}
