import type { RoutingTable } from '../config/routing-table-schema.js';
import { RouterError } from '../shared/errors.js';
import type { CooldownRecord } from '../state/state-store.js';
import { decideCooldown, type CooldownInput } from './cooldown-policy.js';
import { decideAfterRound, type AfterRound, type AfterRoundInput } from './decide-after-round.js';
import {
  decideFaultOwner,
  isContentFault,
  isRequestFault,
  type ContentFailure,
  type FaultOwner,
  type FaultOwnerInput,
} from './decide-fault-owner.js';
import { decidePanic, type CoolingCandidate } from './decide-panic.js';
import { decideRetryInPlace, type InPlaceSpent, type RetryInPlaceInput } from './decide-retry-in-place.js';
import { noteFailure, type FailureNotes } from './note-failure.js';
import { orderGroup } from './order-group.js';
import type { RoutePlan } from './route-plan.js';
import { toCandidates, type Candidate } from './to-candidates.js';
import type { Random } from '../shared/clock.js';

/** In-flight requests and EWMA time to first token (ms) per deployment id of a plan's group. */
export interface GroupLoad {
  inFlight: ReadonlyMap<string, number>;
  latencies: ReadonlyMap<string, number>;
}

/** The routing table's `balancer` section: retry budget, backoff, cooldowns. */
export type BalancerSettings = RoutingTable['balancer'];

/** What a failed call leaves the policy to judge. */
export type PolicyFailure = ContentFailure;

/**
 * The request's state when a call failed: its failure notes, and, when calling the same deployment
 * again is an option, the facts that decision reads (absent: the request only moves on or stops).
 */
export interface FailureState {
  notes: FailureNotes;
  inPlace?: Omit<RetryInPlaceInput, 'error' | 'callsLeft'> & { calls: number };
}

/** What the request does after a failed call. */
export type Next =
  /** Wait `wait` ms, then call the same deployment again; `spent` is what the request has used then. */
  | { kind: 'retry-in-place'; wait: number; spent: InPlaceSpent }
  /** Go on to the next candidate (the group, then the fallback chain) with `notes`. */
  | { kind: 'move-on'; notes: FailureNotes }
  /** End the request with `error`. */
  | { kind: 'stop'; error: RouterError };

/**
 * Every retry, cooldown and fallback decision of the balancer, as one object built from the table's
 * `balancer` settings (the tier's `retry_in_place` comes with each request's plan). Pure: the attempt
 * loop (attempt-loop.ts) reads the store and the clock and hands the facts in.
 */
export interface BalancerPolicy {
  /** Whether the plan's strategy reads the group's load (in-flight counts, latencies); `weighted` does not. */
  readsLoad(plan: RoutePlan): boolean;
  /**
   * The try order of a request: its group ordered by the plan's strategy, then the quality-ordered
   * fallback chain without the group's members.
   */
  tryOrder(plan: RoutePlan, load: GroupLoad, random: Random): Candidate[];
  /** Upstream calls one request may make, fallbacks and in-place retries included. */
  readonly maxAttempts: number;
  /** Whether another upstream call may be made now: calls left and the deadline not reached. */
  mayCall(state: { calls: number; deadlineAt: number; now: number }): boolean;
  /** After a failed call: retry in place, move on to the next candidate, or stop. */
  onFailure(failure: PolicyFailure, state: FailureState): Next;
  /** After a round without an answer: the backoff before another round, or the error that ends the request. */
  afterRound(input: Omit<AfterRoundInput, 'retry'>): AfterRound;
  /** Whether a failure benches the deployment, and until when. */
  cooldownFor(input: Omit<CooldownInput, 'cooldownMs' | 'maxCooldownMs'>): CooldownRecord | undefined;
  /** Panic mode: the cooling deployment called anyway when every usable one is cooling; undefined for none. */
  panicPick(cooling: readonly CoolingCandidate[]): string | undefined;
  /** A failure that may follow the request content rather than the deployment (a 5xx other than 502-504). */
  isContentFault(failure: PolicyFailure): boolean;
  /** Whose fault a held 5xx is, at the end of the request. */
  faultOwner(input: FaultOwnerInput): FaultOwner;
  /**
   * The error that stops a request whose content answered 5xx on `failedDeployments` deployments and
   * was never answered (502 UPSTREAM_SERVER_ERROR); undefined while it may go on.
   */
  contentStop(input: {
    failure: PolicyFailure;
    answered: boolean;
    failedDeployments: number;
  }): RouterError | undefined;
}

/** The balancer's policy for one routing table's `balancer` settings. */
export function createBalancerPolicy(settings: BalancerSettings): BalancerPolicy {
  const { retry } = settings;
  return {
    readsLoad: (plan) => plan.strategy !== 'weighted',
    tryOrder: (plan, load, random) => {
      const members = plan.group.map((deployment) => ({ id: deployment.id, weight: deployment.weight }));
      const order = orderGroup({ members, strategy: plan.strategy, random, ...load });
      return toCandidates(plan, order);
    },
    maxAttempts: retry.max_attempts,
    mayCall: (state) => state.calls < retry.max_attempts && state.deadlineAt > state.now,
    onFailure: (failure, state) => {
      const { inPlace } = state;
      if (inPlace !== undefined) {
        const callsLeft = retry.max_attempts - inPlace.calls;
        const planned = decideRetryInPlace({ ...inPlace, error: failure.error, callsLeft });
        if (planned !== undefined) return { kind: 'retry-in-place', ...planned };
      }
      return toMoveOnOrStop(failure, state.notes);
    },
    afterRound: (input) => decideAfterRound({ ...input, retry }),
    cooldownFor: (input) =>
      decideCooldown({ ...input, cooldownMs: settings.cooldown_ms, maxCooldownMs: settings.max_cooldown_ms }),
    panicPick: decidePanic,
    isContentFault,
    faultOwner: decideFaultOwner,
    contentStop: ({ failure, answered, failedDeployments }) => {
      if (!isRequestFault({ answered, failedDeployments })) return undefined;
      return new RouterError({
        code: 'UPSTREAM_SERVER_ERROR',
        message: `the request failed with a server error on ${failedDeployments} deployments; it was not tried further`,
        upstreamStatus: failure.error.upstreamStatus ?? 500,
        cause: failure.error,
      });
    },
  };
}

/** `noteFailure`'s verdict as a value: the notes to go on with, or the error it ends the request with. */
function toMoveOnOrStop(failure: PolicyFailure, notes: FailureNotes): Next {
  try {
    return { kind: 'move-on', notes: noteFailure(notes, failure.candidate, failure.error) };
  } catch (error) {
    if (error instanceof RouterError) return { kind: 'stop', error };
    throw error;
  }
}
