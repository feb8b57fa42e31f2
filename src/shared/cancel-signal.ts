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

/**
 * A class, not an object literal: V8 (Node 20) tenures object literals that carry their own getters,
 * so a literal signal made per request would again survive every scavenge.
 */
class Cancellation implements CancelSignal, CancelController {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] = [];

  get signal(): CancelSignal {
    return this;
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.listeners.indexOf(listener);
    if (index !== -1) this.listeners.splice(index, 1);
  }

  abort(given?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = given ?? new DOMException('This operation was aborted', 'AbortError');
    const called = this.listeners;
    this.listeners = [];
    for (const listener of called) listener();
  }
}

export function createCancelController(): CancelController {
  return new Cancellation();
}
