import { isStopped, toRouterError, type RouterError } from '../shared/errors.js';
import type { UpstreamEvent } from '../upstream/upstream.js';
import type { CommittedAttempt } from './run-attempt.js';
import { toCompletionTokens } from './to-completion-tokens.js';

/** Told once how a committed stream ended; a client that left (or autotier's shutdown) counts as a success. */
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

/** What reading the rest needs from its owner. */
interface RestHooks {
  /** Sees each batch before the client does (to keep the latest usage). */
  note(batch: readonly UpstreamEvent[]): void;
  settle(error?: RouterError): Promise<void>;
  isSettled(): boolean;
  cancel(): void;
}

/** The part of a committed stream after its first content token; settles exactly once. */
export function toCommittedRest(committed: CommittedAttempt, settlement: RestSettlement): CommittedRest {
  let settled = false;
  let completionTokens = toCompletionTokens(committed.head);
  const settle = async (error?: RouterError): Promise<void> => {
    if (settled) return;
    settled = true;
    if (error === undefined || isStopped(error)) await settlement.onSuccess(completionTokens);
    else await settlement.onFailure(error);
  };
  const cancel = (): void => {
    committed.abort();
    void committed.iterator.return?.();
    void settle();
  };
  const hooks: RestHooks = {
    note: (batch) => {
      completionTokens = toCompletionTokens(batch) || completionTokens;
    },
    settle,
    isSettled: () => settled,
    cancel,
  };
  return { rest: { [Symbol.asyncIterator]: () => readRest(committed, hooks) }, cancel };
}

/** The pending batch, then the live iterator to its end; settles on the end or the first error. */
async function* readRest(committed: CommittedAttempt, hooks: RestHooks): AsyncGenerator<UpstreamEvent[]> {
  try {
    if (committed.pending.length > 0) {
      hooks.note(committed.pending);
      yield committed.pending;
    }
    for (;;) {
      const next = await committed.iterator.next();
      if (next.done === true) break;
      hooks.note(next.value);
      yield next.value;
    }
    await hooks.settle();
  } catch (error) {
    const routerError = toRouterError(error);
    await hooks.settle(routerError);
    throw routerError;
  } finally {
    if (!hooks.isSettled()) hooks.cancel();
  }
}
