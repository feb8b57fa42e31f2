import type { UpstreamEvent } from './upstream.js';

/**
 * The hand-over from the HTTP client's callbacks (push) to the balancer's `for await` (pull). Events
 * pushed in one turn of the event loop (one network read) reach the reader as one batch. Past
 * `highWater` queued events or `highWaterChars` queued characters the producer is paused until the
 * reader catches up: a reader that stops (its client does not read) holds a bounded buffer, and the
 * deployment feels TCP back-pressure.
 */
export interface EventQueue extends AsyncIterable<UpstreamEvent[]> {
  push(events: readonly UpstreamEvent[]): void;
  end(): void;
  fail(error: Error): void;
}

export interface EventQueueOptions {
  /** Queued events above which `pause` is called. @default 4096 */
  highWater?: number;
  /**
   * Queued characters of event data above which `pause` is called. @default 262144 (256 Ki: about a
   * thousand token chunks; each is held twice, as its text and its parsed chunk)
   */
  highWaterChars?: number;
  pause(): void;
  resume(): void;
  /** Called once when the reader is done: at the end, at an error, or when it stops early. */
  onClose(): void;
}

type Waiter = {
  resolve: (result: IteratorResult<UpstreamEvent[]>) => void;
  reject: (error: Error) => void;
};

export function createEventQueue(options: EventQueueOptions): EventQueue {
  const highWater = options.highWater ?? 4096;
  const highWaterChars = options.highWaterChars ?? 256 * 1024;
  let queued: UpstreamEvent[] = [];
  let queuedChars = 0;
  let ended = false;
  let failure: Error | undefined;
  let closed = false;
  let paused = false;
  let waiter: Waiter | undefined;
  let flushScheduled = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    options.onClose();
  };
  /** Answers a waiting reader: a batch first, then the end or the error. */
  const settle = (target: Waiter): void => {
    if (queued.length > 0) {
      const batch = queued;
      queued = [];
      queuedChars = 0;
      if (paused) {
        paused = false;
        options.resume();
      }
      target.resolve({ done: false, value: batch });
    } else if (failure !== undefined) {
      close();
      target.reject(failure);
    } else {
      close();
      target.resolve({ done: true, value: undefined });
    }
  };
  const flush = (): void => {
    flushScheduled = false;
    const target = waiter;
    if (target === undefined) return;
    waiter = undefined;
    settle(target);
  };
  const wake = (): void => {
    if (waiter === undefined || flushScheduled) return;
    flushScheduled = true;
    // after the rest of this read's callbacks, so they arrive as one batch
    queueMicrotask(flush);
  };
  const iterator: AsyncIterator<UpstreamEvent[]> = {
    next() {
      if (closed && queued.length === 0)
        return failure === undefined || ended
          ? Promise.resolve({ done: true, value: undefined })
          : Promise.reject(failure);
      if (queued.length > 0 || ended || failure !== undefined)
        return new Promise((resolve, reject) => settle({ resolve, reject }));
      return new Promise((resolve, reject) => {
        waiter = { resolve, reject };
      });
    },
    return() {
      queued = [];
      queuedChars = 0;
      close();
      return Promise.resolve({ done: true, value: undefined });
    },
  };
  return {
    push(events) {
      if (closed || ended || failure !== undefined || events.length === 0) return;
      for (const event of events) {
        queued.push(event);
        queuedChars += event.data.length;
      }
      if (!paused && (queued.length > highWater || queuedChars > highWaterChars)) {
        paused = true;
        options.pause();
      }
      wake();
    },
    end() {
      if (ended || failure !== undefined) return;
      ended = true;
      wake();
    },
    fail(error) {
      if (ended || failure !== undefined) return;
      failure = error;
      wake();
    },
    [Symbol.asyncIterator]: () => iterator,
  };
}
