import type { DeploymentConfig } from '../config/table-part-schemas.js';
import type { StateStore } from '../state/state-store.js';
import { decideAvailability } from './decide-availability.js';
import type { AttemptRecord } from './route-plan.js';
import type { Candidate } from './to-candidates.js';

/** What the store says about a failed deployment and its equal-rank peers, for `decideRetryInPlace`. */
export interface InPlaceState {
  /** The deployment has a cooldown record (its call was the probe, or another request benched it). */
  benched: boolean;
  /** A group member this request has not tried yet is free: not benched, below max_concurrency. */
  peerFree: boolean;
}

export interface InPlaceStateInput {
  /** The candidate whose call failed. */
  candidate: Candidate;
  /** The plan's group; a fallback candidate has no peers (the chain is quality-ordered). */
  group: readonly DeploymentConfig[];
  /** The request's attempts so far: a deployment named here was tried (called or skipped). */
  attempts: readonly AttemptRecord[];
  /** Peers with a window at or below this cannot take the request (a context-length rejection). */
  minimumWindow: number;
  /** Epoch ms. */
  now: number;
}

/** Reads, in one round trip per kind, the cooldowns and in-flight counts the decision needs. */
export async function readInPlaceState(store: StateStore, input: InPlaceStateInput): Promise<InPlaceState> {
  const { candidate, now } = input;
  const id = candidate.deployment.id;
  const tried = new Set(input.attempts.map((attempt) => attempt.deploymentId));
  const peers = candidate.fallback
    ? []
    : input.group.filter(
        (deployment) =>
          deployment.id !== id &&
          !tried.has(deployment.id) &&
          deployment.context_window > input.minimumWindow,
      );
  const peerIds = peers.map((deployment) => deployment.id);
  const [cooldowns, inFlight] = await Promise.all([
    store.getCooldowns([id, ...peerIds]),
    peerIds.length === 0 ? new Map<string, number>() : store.getInFlight(peerIds),
  ]);
  const peerFree = peers.some(
    (deployment) =>
      decideAvailability({
        inFlight: inFlight.get(deployment.id) ?? 0,
        maxConcurrency: deployment.max_concurrency,
        cooldown: cooldowns.get(deployment.id),
        now,
      }).kind === 'free',
  );
  return { benched: cooldowns.has(id), peerFree };
}
