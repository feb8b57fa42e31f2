import { RouterError } from '../shared/errors.js';
import type { ExecuteRequest } from './balancer.js';
import type { DeploymentHealth } from './create-deployment-health.js';
import { decideFaultOwner, isRequestFault } from './decide-fault-owner.js';
import { toFingerprint, type FaultMemory } from './fault-memory.js';
import type { Candidate } from './to-candidates.js';

/** What the fault books of a balancer need. */
export interface FaultParts {
  faults: FaultMemory;
  health: DeploymentHealth;
}

/** A failed call. */
export interface ContentFailure {
  candidate: Candidate;
  error: RouterError;
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

/**
 * Statuses that speak for the server, not the request: unavailable (503) and a gateway's errors
 * (502, 504). A 500 or any other 5xx may come from what the request carries (an engine that crashes
 * on one prompt).
 */
const SERVER_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/** A failure that may follow the request content rather than the deployment: a 5xx other than 502-504. */
export function isContentFault(failure: ContentFailure): boolean {
  const { error } = failure;
  return error.code === 'UPSTREAM_SERVER_ERROR' && !SERVER_STATUSES.has(error.upstreamStatus ?? 500);
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
  if (!isRequestFault({ answered: before?.answered ?? false, failedDeployments })) return;
  throw new RouterError({
    code: 'UPSTREAM_SERVER_ERROR',
    message: `the request failed with a server error on ${failedDeployments} deployments; it was not tried further`,
    upstreamStatus: failure.error.upstreamStatus ?? 500,
    cause: failure.error,
  });
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
    const owner = decideFaultOwner({
      answered: answeredBy !== undefined || (record?.answered ?? false),
      reproducedElsewhere: record?.deployments.some((other) => other !== id) ?? false,
      repeatedHere: failure.repeatedHere,
      failingContents: faults.failingContents(id),
    });
    if (owner === 'deployment') await parts.health.bench(failure.candidate, failure.error);
  }
}
