/**
 * The part of `AbortSignal` the request path uses, as a plain object. Node 20's AbortSignal is kept
 * alive by every young-generation GC until the next full one (measured: with one signal per request,
 * 1.3 MB of otherwise dead objects promoted per scavenge and 2-3 ms pauses instead of 0.1 ms), so
 * requests and attempts use this; a real `AbortSignal` also satisfies the interface, so callers and
 * tests may pass one.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface CancelController {
  readonly signal: CancelSignal;
  /** Aborts once (later calls do nothing) and calls every listener; `reason` defaults to an AbortError. */
  abort(reason?: unknown): void;
}

export function createCancelController(): CancelController {
  let aborted = false;
  let reason: unknown;
  let listeners: (() => void)[] = [];
  const signal: CancelSignal = {
    get aborted() {
      return aborted;
    },
    get reason() {
      return reason;
    },
    addEventListener(_type, listener) {
      if (!aborted) listeners.push(listener);
    },
    removeEventListener(_type, listener) {
      const index = listeners.indexOf(listener);
      if (index !== -1) listeners.splice(index, 1);
    },
  };
  return {
    signal,
    abort(given) {
      if (aborted) return;
      aborted = true;
      reason = given ?? new DOMException('This operation was aborted', 'AbortError');
      const called = listeners;
      listeners = [];
      for (const listener of called) listener();
    },
  };
}
