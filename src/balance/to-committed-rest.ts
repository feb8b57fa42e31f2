import { toRouterError, type RouterError } from '../shared/errors.js';
import type { UpstreamEvent } from '../upstream/upstream.js';
import type { CommittedAttempt } from './run-attempt.js';
import { toCompletionTokens } from './to-completion-tokens.js';

/** Told once how a committed stream ended; a client that left counts as a success. */
export interface RestSettlement {
  onSuccess(completionTokens: number): Promise<void>;
  onFailure(error: RouterError): Promise<void>;
}

export interface CommittedRest {
  /** Events after the commit point, in arrival batches. */
  rest: AsyncIterable<UpstreamEvent[]>;
  /** Stops the upstream stream and settles it as a success. */
  cancel(): void;
}

/** The part of a committed stream after its first content token; settles exactly once. */
export function toCommittedRest(committed: CommittedAttempt, settlement: RestSettlement): CommittedRest {
  let settled = false;
  let completionTokens = toCompletionTokens(committed.head);
  const settle = async (error?: RouterError): Promise<void> => {
    if (settled) return;
    settled = true;
    if (error === undefined || error.code === 'CLIENT_CLOSED') await settlement.onSuccess(completionTokens);
    else await settlement.onFailure(error);
  };
  const cancel = (): void => {
    committed.abort();
    void committed.iterator.return?.();
    void settle();
  };
  const note = (batch: readonly UpstreamEvent[]): void => {
    completionTokens = toCompletionTokens(batch) || completionTokens;
  };
  const rest: AsyncIterable<UpstreamEvent[]> = {
    async *[Symbol.asyncIterator]() {
      try {
        if (committed.pending.length > 0) {
          note(committed.pending);
          yield committed.pending;
        }
        for (;;) {
          const next = await committed.iterator.next();
          if (next.done === true) break;
          note(next.value);
          yield next.value;
        }
        await settle();
      } catch (error) {
        const routerError = toRouterError(error);
        await settle(routerError);
        throw routerError;
      } finally {
        if (!settled) cancel();
      }
    },
  };
  return { rest, cancel };
}
