import { isStopped, toRouterError, type RouterError } from '../shared/errors.js';
import type { Usage } from '../upstream/chat-chunk.js';
import type { UpstreamEvent } from '../upstream/upstream.js';
import type { ContinuationEvent, ExecuteRequest } from './balancer.js';
import {
  isStreamBreak,
  noteDelivered,
  planContinuation,
  toDeliveredAnswer,
  type DeliveredAnswer,
} from './delivered-answer.js';
import { relabelContinuation, type ContinuationRecord } from './relabel-continuation.js';
import type { CommittedAttempt } from './run-attempt.js';
import type { Candidate } from './to-candidates.js';
import type { CommittedRest } from './to-committed-rest.js';

/** A continuation call that reached its commit point. */
export interface ContinuationLeg {
  candidate: Candidate;
  committed: CommittedAttempt;
  /** Epoch ms when the call started. */
  startedAt: number;
}

/** How one continuation call went: passed over without a call, failed, or answering. */
export type LegOpening = { skipped: string } | { failed: RouterError } | { leg: ContinuationLeg };

/** What continuing needs from the balancer that runs the request. */
export interface ContinuationDeps {
  request: ExecuteRequest;
  /** The request's candidates in try order (group, then fallback chain). */
  candidates(): Promise<readonly Candidate[]>;
  /** True while another upstream call fits: attempts left and the deadline ahead. */
  mayCall(): boolean;
  /** Checks a candidate, calls it with `body` up to the request's commit point, and books the attempt. */
  open(candidate: Candidate, body: string): Promise<LegOpening>;
  report(event: ContinuationEvent): void;
}

/** One answer across its legs: what was delivered, the switches, and the usage of the broken legs. */
export interface ContinuationChain {
  delivered: DeliveredAnswer;
  records: ContinuationRecord[];
  /** Usage of the legs that broke, summed (estimated where a leg broke before reporting it). */
  earlierUsage: Usage;
  /** Completion tokens delivered before the current leg started. */
  legStartTokens: number;
  /** Deployments already used for this answer: none is asked twice. */
  used: Set<string>;
}

export function toContinuationChain(first: Candidate, head: readonly UpstreamEvent[]): ContinuationChain {
  const delivered = toDeliveredAnswer();
  noteDelivered(delivered, head);
  return {
    delivered,
    records: [],
    earlierUsage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    legStartTokens: 0,
    used: new Set([first.deployment.id]),
  };
}

/**
 * After the answer from `from` broke with `error`: continues it on the first continuation-capable
 * deployment (`continuation: true`) of the request's candidates that is free and takes the call, or
 * returns undefined (the caller then ends the answer as before, naming the original break).
 */
export async function openContinuation(
  deps: ContinuationDeps,
  chain: ContinuationChain,
  broken: { from: Candidate; error: RouterError },
): Promise<ContinuationLeg | undefined> {
  const { request } = deps;
  // a deadline, a client that left or a shutdown is not a break another deployment could mend
  if (!isStreamBreak(broken.error)) return undefined;
  const plan = planContinuation(chain.delivered, broken.error);
  const base = {
    requestId: request.requestId,
    tier: request.plan.tier,
    from: broken.from.deployment.id,
    error: broken.error.code,
    deliveredTokens: plan.kind === 'continue' ? plan.completionTokens : chain.delivered.contentEvents,
  };
  const toBody = request.toContinuationBody;
  if (toBody === undefined || plan.kind === 'unsound') {
    const detail = plan.kind === 'unsound' ? plan.reason : 'the request cannot be continued';
    deps.report({ ...base, outcome: 'unsound', detail });
    return undefined;
  }
  const capable = (await deps.candidates()).filter(
    (candidate) => candidate.deployment.continuation && !chain.used.has(candidate.deployment.id),
  );
  const failures: string[] = [];
  for (const candidate of capable) {
    if (!deps.mayCall()) break;
    chain.used.add(candidate.deployment.id);
    const opening = await deps.open(candidate, toBody(candidate.deployment, plan));
    if ('leg' in opening) {
      noteBreak(chain, { request, broken, plan, to: candidate });
      deps.report({ ...base, outcome: 'continued', to: candidate.deployment.id });
      return opening.leg;
    }
    if ('failed' in opening && isStopped(opening.failed)) throw opening.failed;
    failures.push(
      `${candidate.deployment.id}: ${'failed' in opening ? opening.failed.code : opening.skipped}`,
    );
  }
  const called = failures.length > 0;
  deps.report({
    ...base,
    outcome: called ? 'failed' : 'no_deployment',
    detail: called ? failures.join('; ') : 'no continuation-capable deployment is left',
  });
  return undefined;
}

/** Books a break that a continuation took over: the switch record and the broken leg's usage. */
function noteBreak(
  chain: ContinuationChain,
  input: {
    request: ExecuteRequest;
    broken: { from: Candidate; error: RouterError };
    plan: { completionTokens: number };
    to: Candidate;
  },
): void {
  const { completionTokens } = input.plan;
  const promptTokens = chain.earlierUsage.prompt_tokens + input.request.promptTokens + chain.legStartTokens;
  chain.earlierUsage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
  chain.legStartTokens = completionTokens;
  chain.records.push({
    from: input.broken.from.deployment.id,
    to: input.to.deployment.id,
    model: input.to.deployment.model,
    reason: input.broken.error.code.toLowerCase(),
    delivered_tokens: completionTokens,
  });
}

/** A continuation leg's events relabelled as part of the chain's answer. */
export function relabelLeg(chain: ContinuationChain, batch: readonly UpstreamEvent[]): UpstreamEvent[] {
  return relabelContinuation(batch, {
    delivered: chain.delivered,
    earlierUsage: chain.earlierUsage,
    records: chain.records,
  });
}

/** A committed stream that, when it breaks, goes on from another deployment where that is sound. */
export interface ContinuingStream {
  deps: ContinuationDeps;
  chain: ContinuationChain;
  first: { candidate: Candidate; rest: CommittedRest };
  /** The rest of a continuation leg, settled on that leg's deployment. */
  toRest(leg: ContinuationLeg): CommittedRest;
}

/** The events after the commit point across legs; `cancel` stops whichever leg is running. */
export function toContinuingRest(stream: ContinuingStream): CommittedRest {
  let current = stream.first;
  let cancelled = false;
  const rest: AsyncIterable<UpstreamEvent[]> = {
    [Symbol.asyncIterator]: () => readLegs(),
  };
  async function* readLegs(): AsyncGenerator<UpstreamEvent[]> {
    const { chain } = stream;
    for (;;) {
      const relabel = current !== stream.first;
      try {
        for await (const batch of current.rest.rest) {
          const out = relabel ? relabelLeg(chain, batch) : batch;
          noteDelivered(chain.delivered, out);
          if (out.length > 0) yield out;
        }
        return;
      } catch (thrown) {
        const error = toRouterError(thrown);
        if (cancelled) throw error;
        const leg = await openContinuation(stream.deps, chain, { from: current.candidate, error });
        if (leg === undefined) throw error;
        current = { candidate: leg.candidate, rest: stream.toRest(leg) };
        const head = relabelLeg(chain, leg.committed.head);
        noteDelivered(chain.delivered, head);
        if (head.length > 0) yield head;
      }
    }
  }
  return {
    rest,
    cancel: () => {
      cancelled = true;
      current.rest.cancel();
    },
  };
}
