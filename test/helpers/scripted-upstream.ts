import type { DeploymentConfig } from '../../src/config/table-part-schemas.js';
import { RouterError } from '../../src/shared/errors.js';
import { toErrorFromException, toErrorFromStatus } from '../../src/upstream/translate-error.js';
import type {
  AttemptRequest,
  Upstream,
  UpstreamAttempt,
  UpstreamEvent,
} from '../../src/upstream/upstream.js';
import type { ManualTime } from './manual-time.js';

/** What one upstream call does. Times are manual-clock ms; the request's limits still apply. */
export type Outcome =
  /** A whole answer of `tokens` content chunks (default 3), the first after `ttftMs` (default 0). */
  | { kind: 'answer'; tokens?: number; ttftMs?: number }
  /** An HTTP error status before any event; `retryAfter` is the header's text. */
  | { kind: 'status'; status: number; retryAfter?: string; body?: string }
  /** Connection refused. */
  | { kind: 'connect_error' }
  /** Connection reset before response headers. */
  | { kind: 'reset' }
  /** No response headers: ends at connect_ms (or at the deadline). */
  | { kind: 'silent' }
  /** Headers, then nothing: ends at ttft_ms (or at the deadline). */
  | { kind: 'no_first_token' }
  /** `after` content chunks, then the connection drops. */
  | { kind: 'cut'; after: number };

export interface ScriptedCall {
  deploymentId: string;
  outcome: Outcome['kind'];
  /** Manual-clock ms when the call was opened. */
  at: number;
  request: AttemptRequest;
  aborted: boolean;
}

/** An in-memory Upstream: each deployment plays its script, one outcome per call (the last repeats). */
export interface ScriptedUpstream extends Upstream {
  calls: ScriptedCall[];
  /** Replaces a deployment's script from its next call on. */
  script(deploymentId: string, outcomes: Outcome[]): void;
  callsTo(deploymentId: string): number;
}

const ANSWER: Outcome = { kind: 'answer' };

function toEvent(chunk: UpstreamEvent['chunk'], firstContent = false): UpstreamEvent {
  return { data: JSON.stringify(chunk), chunk, firstContent };
}

function answerEvents(tokens: number, finish: boolean): UpstreamEvent[][] {
  const batches = [[toEvent({ choices: [{ index: 0, delta: { role: 'assistant' } }] })]];
  for (let index = 0; index < tokens; index += 1)
    batches.push([toEvent({ choices: [{ index: 0, delta: { content: `t${index} ` } }] }, index === 0)]);
  if (finish) {
    const usage = { prompt_tokens: 5, completion_tokens: tokens, total_tokens: 5 + tokens };
    batches.push([toEvent({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage })]);
  }
  return batches;
}

/** Waits `milliseconds`, unless a limit (connect, ttft or the deadline) comes first: then throws its error. */
async function waitWithin(
  time: ManualTime,
  call: { request: AttemptRequest; limit: 'connect' | 'ttft' },
  milliseconds: number,
): Promise<void> {
  const { limits, deployment } = call.request;
  const limitMs = call.limit === 'connect' ? limits.connectMs : limits.ttftMs;
  const toDeadline = limits.deadlineAt - time.clock.now();
  const wait = Math.min(milliseconds, limitMs, toDeadline);
  if (wait > 0) await time.wait(wait, call.request.signal);
  if (wait === milliseconds) return;
  if (wait === toDeadline && toDeadline < limitMs)
    throw new RouterError({ code: 'DEADLINE_EXCEEDED', message: `${deployment.id}: total deadline reached` });
  throw call.limit === 'connect'
    ? new RouterError({
        code: 'UPSTREAM_CONNECT_TIMEOUT',
        message: `${deployment.id}: no headers`,
        retryable: true,
      })
    : new RouterError({
        code: 'UPSTREAM_TTFT_TIMEOUT',
        message: `${deployment.id}: no first token`,
        retryable: true,
      });
}

function openError(outcome: Outcome, deployment: DeploymentConfig, now: number): RouterError | undefined {
  if (outcome.kind === 'status')
    return toErrorFromStatus({
      deploymentId: deployment.id,
      status: outcome.status,
      bodyText: outcome.body ?? `{"error":{"message":"status ${outcome.status}"}}`,
      retryAfter: outcome.retryAfter,
      now,
    });
  if (outcome.kind === 'connect_error')
    return toErrorFromException(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), {
      deploymentId: deployment.id,
    });
  if (outcome.kind === 'reset')
    return toErrorFromException(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }), {
      deploymentId: deployment.id,
    });
  return undefined;
}

async function* playEvents(
  time: ManualTime,
  call: ScriptedCall,
  outcome: Outcome,
): AsyncGenerator<UpstreamEvent[]> {
  const { request } = call;
  if (outcome.kind === 'no_first_token') await waitWithin(time, { request, limit: 'ttft' }, Infinity);
  const tokens =
    outcome.kind === 'cut' ? outcome.after : outcome.kind === 'answer' ? (outcome.tokens ?? 3) : 0;
  const batches = answerEvents(tokens, outcome.kind === 'answer');
  yield batches[0] ?? [];
  if (outcome.kind === 'answer') await waitWithin(time, { request, limit: 'ttft' }, outcome.ttftMs ?? 0);
  for (const batch of batches.slice(1)) {
    if (call.aborted) throw new RouterError({ code: 'CLIENT_CLOSED', message: 'attempt aborted' });
    yield batch;
  }
  if (outcome.kind === 'cut')
    throw new RouterError({
      code: 'UPSTREAM_STREAM_CUT',
      message: `${call.deploymentId}: stream cut`,
      retryable: true,
    });
}

export function createScriptedUpstream(
  time: ManualTime,
  scripts: Record<string, Outcome[]> = {},
): ScriptedUpstream {
  const remaining = new Map(Object.entries(scripts).map(([id, outcomes]) => [id, [...outcomes]]));
  const calls: ScriptedCall[] = [];
  const nextOutcome = (id: string): Outcome => {
    const outcomes = remaining.get(id) ?? [];
    return (outcomes.length > 1 ? outcomes.shift() : outcomes[0]) ?? ANSWER;
  };
  return {
    calls,
    script: (id, outcomes) => remaining.set(id, [...outcomes]),
    callsTo: (id) => calls.filter((call) => call.deploymentId === id).length,
    async open(request): Promise<UpstreamAttempt> {
      const outcome = nextOutcome(request.deployment.id);
      const call: ScriptedCall = {
        deploymentId: request.deployment.id,
        outcome: outcome.kind,
        at: time.clock.now(),
        request,
        aborted: false,
      };
      calls.push(call);
      const error = openError(outcome, request.deployment, time.clock.now());
      if (error !== undefined) throw error;
      if (outcome.kind === 'silent') await waitWithin(time, { request, limit: 'connect' }, Infinity);
      return {
        headersMs: 0,
        events: { [Symbol.asyncIterator]: () => playEvents(time, call, outcome) },
        abort: () => {
          call.aborted = true;
        },
      };
    },
    close: () => Promise.resolve(),
  };
}
