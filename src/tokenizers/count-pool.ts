import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { CancelSignal } from '../shared/cancel-signal.js';
import { RouterError } from '../shared/errors.js';
import { startWorkerEntry } from '../shared/start-worker-entry.js';
import { createCountThread, type CountThread, type SegmentCount } from './count-thread.js';
import { STOP_INDEX } from './count-worker.js';
import { toSegmentRanges, toSegmentText } from './segment-ranges.js';
import { createSharedSpecLoader } from './load-shared-spec.js';
import type { TokenizerName } from './tokenizer-name.js';
import type { SharedTokenizerSpec } from './tokenizer-spec.js';

export interface CountPoolOptions {
  /** Counting threads; 0 disables the pool. @default min(4, availableParallelism()) */
  threads?: number | undefined;
  /** Starts one counting thread (tests pass their own). @default the count-worker entry */
  startThread?: () => Worker;
  /**
   * A tokenizer's tables, shared with the threads (the caller passes the ones its own counter uses, so
   * the process holds one copy). @default loaded once per pool
   */
  loadSpec?: (tokenizer: TokenizerName) => Promise<SharedTokenizerSpec>;
  /**
   * The threads end after this long without a count, in milliseconds (they start again on the next
   * long text): an idle server holds no thread heaps. @default IDLE_STOP_MS
   */
  idleStopMs?: number;
}

/** 60 s: a thread costs about 50 ms to start and 150 ms of warm-up, nothing next to a minute. */
export const IDLE_STOP_MS = 60_000;

export interface PooledCountOptions {
  /** Every thread stops once the segments' counts add up to more than this. */
  stopAbove?: number | undefined;
  /** The request's signal: a client that goes away stops every thread (CLIENT_CLOSED). */
  signal?: CancelSignal | undefined;
}

/** A count split over threads: the sum of its segments' counts, and each segment's. */
export interface PooledCount {
  tokens: number;
  segments: SegmentCount[];
}

export interface CountPool {
  /**
   * Counts a text on the threads that have the tokenizer loaded, one segment each; undefined when
   * none has it yet (the threads are started and start loading it) or a thread failed: the caller
   * counts in-process then. Above stopAbove the result is any number above it, as in-process.
   */
  count(
    tokenizer: TokenizerName,
    text: string,
    options?: PooledCountOptions,
  ): Promise<PooledCount | undefined>;
  /**
   * Starts the threads and loads the tokenizer on each; resolves with how many have it (scripts and
   * tests: a service leaves it to its first long count, so one that never sees one pays nothing).
   */
  prepare(tokenizer: TokenizerName): Promise<number>;
  /** Ends the threads; later counts are undefined. */
  close(): Promise<void>;
}

export const DEFAULT_COUNT_THREADS = Math.min(4, availableParallelism());

const startCountWorker = (): Worker => startWorkerEntry(new URL('./count-worker.js', import.meta.url));

const clientClosed = (): RouterError =>
  new RouterError({ code: 'CLIENT_CLOSED', message: 'client closed the connection' });

/** Settles with the counts, or rejects with CLIENT_CLOSED once the signal aborts (the threads are told to stop). */
function awaitCounts(
  counts: Promise<(SegmentCount | undefined)[]>,
  control: Int32Array,
  signal: CancelSignal | undefined,
): Promise<(SegmentCount | undefined)[]> {
  if (signal === undefined) return counts;
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => {
      Atomics.store(control, STOP_INDEX, 1);
      reject(clientClosed());
    };
  });
  signal.addEventListener('abort', onAbort);
  return Promise.race([counts, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

/**
 * Worker threads that count long texts in parallel, off the event loop. Started on the first count
 * (a server that never sees a long text pays no memory) and ended after idleStopMs without one. Each
 * counts with the tables the process already holds (SharedArrayBuffers, posted without a copy), so a
 * thread costs its own heap only. A thread that exits is replaced on the next count.
 */
export function createCountPool(options: CountPoolOptions = {}): CountPool {
  const size = Math.max(0, Math.floor(options.threads ?? DEFAULT_COUNT_THREADS));
  const startThread = options.startThread ?? startCountWorker;
  const loadSpec = options.loadSpec ?? createSharedSpecLoader();
  const idleStopMs = options.idleStopMs ?? IDLE_STOP_MS;
  const threads: CountThread[] = [];
  let closed = false;
  /** Counts and loads under way: the threads are not idle. */
  let busy = 0;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** Marks work under way until `done` settles; idleStopMs after the last settles, the threads end. */
  const whileBusy = async <T>(done: Promise<T>): Promise<T> => {
    busy += 1;
    clearTimeout(idleTimer);
    try {
      return await done;
    } finally {
      busy -= 1;
      if (busy === 0 && !closed) {
        // unref'd: an idle pool holds no process open
        idleTimer = setTimeout(() => {
          if (busy === 0) for (const thread of threads.splice(0)) void thread.terminate();
        }, idleStopMs);
        idleTimer.unref();
      }
    }
  };
  /** Starts the threads that are missing (none started yet, or one exited). */
  const startMissing = (): void => {
    try {
      for (let index = 0; index < size && !closed; index++)
        if (!(threads[index]?.alive ?? false)) threads[index] = createCountThread(startThread());
    } catch {
      // no thread could start (out of resources): the threads that are there count, or none
    }
  };
  /**
   * Has the threads load the tokenizer one after another (a load takes a core for about a second: one
   * at a time leaves the other cores to the event loop); resolves with how many have it.
   */
  const loadEverywhere = (tokenizer: TokenizerName): Promise<number> =>
    whileBusy(
      (async () => {
        startMissing();
        const spec = await loadSpec(tokenizer).catch(() => undefined);
        if (spec === undefined) return 0;
        let loaded = 0;
        for (const thread of [...threads]) if (await thread.load(tokenizer, spec)) loaded += 1;
        return loaded;
      })(),
    );
  /** The threads a count would start on now; the others are told to load the tokenizer meanwhile. */
  const readyThreads = (tokenizer: TokenizerName): CountThread[] => {
    void loadEverywhere(tokenizer);
    return threads.filter((thread) => thread.isReady(tokenizer));
  };
  return {
    async count(tokenizer, text, countOptions = {}) {
      if (closed || size === 0) return undefined;
      const ready = readyThreads(tokenizer);
      if (ready.length === 0) return undefined;
      if (countOptions.signal?.aborted === true) throw clientClosed();
      const ranges = toSegmentRanges(text, ready.length);
      const shared = new SharedArrayBuffer(4 * (1 + ranges.length));
      const control = new Int32Array(shared);
      const stopAbove = countOptions.stopAbove ?? Infinity;
      const counts = ranges.map((range, slot) => {
        const job = { tokenizer, text: toSegmentText(text, range), end: range.end - range.start };
        return (ready[slot] as CountThread)
          .count({ ...job, control: shared, slot, stopAbove })
          .then((segment) => {
            // a failed segment stops the others: the caller counts the whole text in-process instead
            if (segment === undefined) Atomics.store(control, STOP_INDEX, 1);
            return segment;
          });
      });
      const segments = await whileBusy(awaitCounts(Promise.all(counts), control, countOptions.signal));
      if (!segments.every((segment) => segment !== undefined)) return undefined;
      return { tokens: segments.reduce((sum, segment) => sum + segment.tokens, 0), segments };
    },
    prepare: loadEverywhere,
    async close() {
      closed = true;
      clearTimeout(idleTimer);
      await Promise.all(threads.map((thread) => thread.terminate()));
      threads.length = 0;
    },
  };
}
