import { isStopped, toRouterError, type RouterError } from '../shared/errors.js';
import { NO_SPAN, toGenAiOperation, type Span, type SpanAttributes } from '../shared/tracing.js';
import type { UpstreamEvent } from '../upstream/upstream.js';
import type { RequestRun } from './request-run.js';
import type { CommittedAttempt } from './run-attempt.js';
import type { Candidate } from './to-candidates.js';

/**
 * The client span of one upstream call: named `chat <model>` (GenAI semantic conventions),
 * under the request's span; it ends when the call fails, when a buffered answer is read, or when a
 * stream's last event arrived (or it was stopped). Its `traceHeaders()` go upstream with the call.
 */

/** Why this call is made: the request's first call, or what the previous one led to. */
export type AttemptReason = 'first' | 'retry_in_place' | 'failover' | 'fallback' | 'continuation';

/** Most distinct finish reasons kept on a span (one per choice; `n` is client-chosen). */
const MAX_FINISH_REASONS = 8;

function toReason(run: RequestRun, candidate: Candidate): { reason: AttemptReason; previous?: string } {
  const previous = run.attempts.findLast((attempt) => attempt.called);
  if (previous === undefined) return { reason: 'first' };
  const reason =
    previous.deploymentId === candidate.deployment.id
      ? 'retry_in_place'
      : candidate.fallback
        ? 'fallback'
        : 'failover';
  return { reason, previous: previous.outcome };
}

function toServer(baseUrl: string): { address: string; port: number } | undefined {
  try {
    const url = new URL(baseUrl);
    return { address: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
  } catch {
    return undefined;
  }
}

function toAttemptAttributes(
  run: RequestRun,
  call: { candidate: Candidate; continuation: boolean },
): SpanAttributes {
  const { deployment } = call.candidate;
  const why = call.continuation ? { reason: 'continuation' as const } : toReason(run, call.candidate);
  const server = toServer(deployment.base_url);
  return {
    'gen_ai.operation.name': toGenAiOperation(run.request.path),
    'gen_ai.request.model': deployment.model,
    'server.address': server?.address,
    'server.port': server?.port,
    'autotier.deployment': deployment.id,
    'autotier.tier': run.request.plan.tier,
    'autotier.attempt': run.calls,
    'autotier.fallback': call.candidate.fallback,
    'autotier.reason': why.reason,
    'autotier.previous_outcome': why.previous,
  };
}

/** Starts the span of the call `run.calls` counts (call it after the count went up). */
export function startAttemptSpan(
  run: RequestRun,
  call: { candidate: Candidate; continuation: boolean },
): Span {
  const parent = run.request.span ?? NO_SPAN;
  // unrecorded: still a child, so an unsampled trace goes upstream with the call's own span id
  if (!parent.recording) return parent.child('attempt');
  const operation = toGenAiOperation(run.request.path);
  return parent.child(`${operation} ${call.candidate.deployment.model}`, {
    kind: 'client',
    attributes: toAttemptAttributes(run, call),
  });
}

/** What the events of one call said: the answering model, finish reasons, token usage. */
function createAnswerNotes(span: Span) {
  let model: string | undefined;
  let responseId: string | undefined;
  const finishReasons = new Set<string>();
  let usage: { prompt_tokens: number; completion_tokens: number } | undefined;
  return {
    note(events: readonly UpstreamEvent[]): void {
      for (const { chunk } of events) {
        model ??= chunk.model;
        responseId ??= chunk.id;
        if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage;
        for (const choice of chunk.choices ?? [])
          if (typeof choice.finish_reason === 'string' && finishReasons.size < MAX_FINISH_REASONS)
            finishReasons.add(choice.finish_reason);
      }
    },
    write(extra: SpanAttributes): void {
      span.setAttributes({
        'http.response.status_code': 200,
        'gen_ai.response.model': model,
        'gen_ai.response.id': responseId,
        'gen_ai.response.finish_reasons': finishReasons.size === 0 ? undefined : [...finishReasons],
        'gen_ai.usage.input_tokens': usage?.prompt_tokens,
        'gen_ai.usage.output_tokens': usage?.completion_tokens,
        ...extra,
      });
    },
  };
}

/** Ends a failed call's span: the error's code, and the upstream's status when it answered one. */
export function failAttemptSpan(span: Span, error: RouterError): void {
  if (span.recording) {
    span.setAttributes({ 'http.response.status_code': error.upstreamStatus });
    if (isStopped(error)) span.setAttributes({ 'autotier.stopped': error.code });
    else span.fail(error);
  }
  span.end();
}

/**
 * The committed call with its span ended at the right time: now for a buffered answer (it is whole),
 * else when the stream's iterator ends, throws or is stopped. Unchanged when the span records nothing.
 */
export function traceCommitted(
  span: Span,
  committed: CommittedAttempt,
  input: { buffered: boolean },
): CommittedAttempt {
  if (!span.recording) {
    span.end();
    return committed;
  }
  const notes = createAnswerNotes(span);
  notes.note(committed.head);
  notes.note(committed.pending);
  const ttft = { 'autotier.ttft_ms': Math.round(committed.ttftMs) };
  if (input.buffered) {
    notes.write(ttft);
    span.end();
    return committed;
  }
  const { iterator } = committed;
  let finished = false;
  const finish = (error?: RouterError): void => {
    if (finished) return;
    finished = true;
    notes.write(ttft);
    if (error === undefined) span.end();
    else failAttemptSpan(span, error);
  };
  const traced: AsyncIterator<UpstreamEvent[]> = {
    async next() {
      try {
        const next = await iterator.next();
        if (next.done === true) finish();
        else notes.note(next.value);
        return next;
      } catch (error) {
        finish(toRouterError(error));
        throw error;
      }
    },
    return: async (value?: unknown) => {
      finish();
      return (await iterator.return?.(value)) ?? { done: true, value: undefined };
    },
  };
  return Object.assign({}, committed, {
    iterator: traced,
    abort: () => {
      committed.abort();
      if (!finished) span.setAttributes({ 'autotier.stopped': 'CLIENT_CLOSED' });
      finish();
    },
  });
}
