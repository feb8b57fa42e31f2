import type { Clock } from '../shared/clock.js';
import { RouterError } from '../shared/errors.js';
import type { AttemptRequest, Upstream, UpstreamEvent } from '../upstream/upstream.js';

/** When the balancer stops failing over: at the first content token (streams) or at the end (buffered). */
export type CommitPoint = 'first_content' | 'complete';

/** One call as the upstream takes it (AttemptRequest), plus what the attempt itself needs. */
export interface AttemptInput extends AttemptRequest {
  upstream: Upstream;
  clock: Clock;
  commit: CommitPoint;
  /**
   * Where the events read before the commit point go; pass one to keep them when the attempt fails
   * (a buffered answer that broke after its first token can be continued from them). @default a new array
   */
  head?: UpstreamEvent[];
}

export interface CommittedAttempt {
  /** Events read before the commit point (every event for `complete`). */
  head: UpstreamEvent[];
  /** Events that arrived in the same read as the first content token, after it. */
  pending: UpstreamEvent[];
  /** The live iterator after the commit point; already finished for `complete`. */
  iterator: AsyncIterator<UpstreamEvent[]>;
  /** Time from the attempt start to the first content token (or to the end), ms. */
  ttftMs: number;
  abort(): void;
}

/** Opens one attempt and reads it up to the commit point; throws a RouterError on any failure. */
export async function runAttempt(input: AttemptInput): Promise<CommittedAttempt> {
  const startedAt = input.clock.now();
  const attempt = await input.upstream.open({
    deployment: input.deployment,
    path: input.path,
    body: input.body,
    signal: input.signal,
    limits: input.limits,
    requestId: input.requestId,
    ...(input.traceHeaders === undefined ? {} : { traceHeaders: input.traceHeaders }),
    ...(input.answer === undefined ? {} : { answer: input.answer }),
  });
  const iterator = attempt.events[Symbol.asyncIterator]();
  const head: UpstreamEvent[] = input.head ?? [];
  let pending: UpstreamEvent[] = [];
  let ttftMs: number | undefined;
  try {
    reading: for (;;) {
      const next = await iterator.next();
      if (next.done === true) break;
      for (const [index, event] of next.value.entries()) {
        head.push(event);
        if (!event.firstContent) continue;
        ttftMs = input.clock.now() - startedAt;
        if (input.commit !== 'first_content') continue;
        pending = next.value.slice(index + 1);
        break reading;
      }
    }
  } catch (error) {
    attempt.abort();
    throw error instanceof RouterError
      ? error
      : new RouterError({ code: 'INTERNAL', message: String(error), cause: error });
  }
  return {
    head,
    pending,
    iterator,
    ttftMs: ttftMs ?? input.clock.now() - startedAt,
    abort: () => attempt.abort(),
  };
}
