import type { Worker } from 'node:worker_threads';
import type { CountThreadReply, CountThreadRequest } from './count-worker.js';
import type { TokenizerName } from './tokenizer-name.js';
import type { SharedTokenizerSpec } from './tokenizer-spec.js';

export type SegmentJob = Omit<Extract<CountThreadRequest, { kind: 'count' }>, 'kind' | 'id'>;

/** A segment's count and the work it took, in steps (characters scanned plus BPE steps). */
export interface SegmentCount {
  tokens: number;
  steps: number;
}

/** One counting thread as the pool sees it. */
export interface CountThread {
  /** False once the thread has exited (crashed or ended): the pool starts another. */
  readonly alive: boolean;
  /** Whether a count for this tokenizer would start now: loaded, and no load queued before it. */
  isReady(tokenizer: TokenizerName): boolean;
  /**
   * Loads the tokenizer unless it is loaded or loading (again after a failed load); true once it is
   * loaded, false when the load failed or the thread exited.
   */
  load(tokenizer: TokenizerName, spec: SharedTokenizerSpec): Promise<boolean>;
  /** The segment's count; undefined when the thread failed or exited before answering. */
  count(job: SegmentJob): Promise<SegmentCount | undefined>;
  terminate(): Promise<void>;
}

/**
 * Tracks one worker: what it has loaded, and the counts it owes. The worker keeps the process alive
 * only while it owes something (a script awaiting a count must not exit under it; an idle pool must
 * not hold a process open).
 */
export function createCountThread(worker: Worker): CountThread {
  const loaded = new Set<TokenizerName>();
  const loading = new Map<TokenizerName, { done: Promise<boolean>; settle: (ok: boolean) => void }>();
  const owed = new Map<number, (count: SegmentCount | undefined) => void>();
  let alive = true;
  let nextId = 0;
  const holdOpen = (): void => {
    if (owed.size + loading.size > 0) worker.ref();
    else worker.unref();
  };
  const send = (request: CountThreadRequest): void => {
    worker.postMessage(request);
    holdOpen();
  };
  worker.unref();
  worker.on('message', (reply: CountThreadReply) => {
    if (reply.kind === 'loaded' || reply.kind === 'load-failed') {
      if (reply.kind === 'loaded') loaded.add(reply.tokenizer);
      loading.get(reply.tokenizer)?.settle(reply.kind === 'loaded');
      loading.delete(reply.tokenizer);
    } else {
      owed.get(reply.id)?.(
        reply.kind === 'counted' ? { tokens: reply.tokens, steps: reply.steps } : undefined,
      );
      owed.delete(reply.id);
    }
    holdOpen();
  });
  // an uncaught error in the thread is followed by 'exit'; the listener keeps it from being thrown here
  worker.on('error', () => undefined);
  worker.on('exit', () => {
    alive = false;
    for (const settle of owed.values()) settle(undefined);
    owed.clear();
    for (const load of loading.values()) load.settle(false);
    loading.clear();
  });
  return {
    get alive() {
      return alive;
    },
    isReady: (tokenizer) => alive && loaded.has(tokenizer) && loading.size === 0,
    load(tokenizer, spec) {
      if (!alive) return Promise.resolve(false);
      if (loaded.has(tokenizer)) return Promise.resolve(true);
      const pending = loading.get(tokenizer);
      if (pending !== undefined) return pending.done;
      let settle: (ok: boolean) => void = () => undefined;
      const done = new Promise<boolean>((resolve) => (settle = resolve));
      loading.set(tokenizer, { done, settle });
      send({ kind: 'load', tokenizer, spec });
      return done;
    },
    count(job) {
      if (!alive) return Promise.resolve(undefined);
      const id = (nextId += 1);
      return new Promise((resolve) => {
        owed.set(id, resolve);
        send({ kind: 'count', id, ...job });
      });
    },
    async terminate() {
      await worker.terminate();
    },
  };
}
