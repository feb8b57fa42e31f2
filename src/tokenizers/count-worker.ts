import { parentPort } from 'node:worker_threads';
import { toWarmUpText } from './warm-up-text.js';
import { createTextCounter, type TextCounter } from './text-counter.js';
import type { TokenizerName } from './tokenizer-name.js';
import { fromSharedSpec, type SharedTokenizerSpec } from './tokenizer-spec.js';

/**
 * The shared control of one pooled count, an Int32Array over a SharedArrayBuffer: STOP_INDEX is set
 * to 1 when the count is cancelled (or given up), and index 1 + slot holds the running total of the
 * segment in that slot, published after each window.
 */
export const STOP_INDEX = 0;

/** What the pool asks of a counting thread. */
export type CountThreadRequest =
  | {
      kind: 'load';
      tokenizer: TokenizerName;
      /** The tables the pool's process already holds, shared (the thread builds no copy). */
      spec: SharedTokenizerSpec;
    }
  | {
      kind: 'count';
      id: number;
      tokenizer: TokenizerName;
      /** The segment and the characters after it its window cuts look at (`toSegmentText`). */
      text: string;
      /** Where the segment ends in `text`. */
      end: number;
      control: SharedArrayBuffer;
      slot: number;
      /** Every thread of the count stops once the segments' totals add up to more than this. */
      stopAbove: number;
    };

/** What a counting thread answers. */
export type CountThreadReply =
  | { kind: 'loaded'; tokenizer: TokenizerName }
  | { kind: 'load-failed'; tokenizer: TokenizerName; message: string }
  | { kind: 'counted'; id: number; tokens: number; steps: number }
  | { kind: 'count-failed'; id: number; message: string };

type CountRequest = Extract<CountThreadRequest, { kind: 'count' }>;

/** Tokens of one segment; stops at the window where the shared totals pass stopAbove or STOP_INDEX is set. */
async function countSegment(counter: TextCounter, request: CountRequest): Promise<CountThreadReply> {
  const control = new Int32Array(request.control);
  const shouldStop = (tokens: number): boolean => {
    Atomics.store(control, 1 + request.slot, tokens);
    if (Atomics.load(control, STOP_INDEX) !== 0) return true;
    let total = 0;
    for (let index = 1; index < control.length; index++) total += Atomics.load(control, index);
    return total > request.stopAbove;
  };
  const meter = { steps: 0 };
  const range = { start: 0, end: request.end };
  const tokens = await counter.count(request.text, { range, shouldStop, meter });
  Atomics.store(control, 1 + request.slot, tokens);
  return { kind: 'counted', id: request.id, tokens, steps: meter.steps };
}

/**
 * Characters counted after each load, before the thread says it is ready (about 150 ms of CPU, once).
 * Measured on 2 threads: a 440k-character English text took 193-211 ms as a thread's first count,
 * 43-53 ms after this warm-up, 23-28 ms warm.
 */
const WARM_UP_CHARACTERS = 262_144;

const counters = new Map<TokenizerName, TextCounter>();

async function answer(request: CountThreadRequest): Promise<CountThreadReply> {
  if (request.kind === 'load') {
    try {
      // no yields: this thread has nothing else to do, and a stop is read from shared memory
      const counter = createTextCounter({ spec: fromSharedSpec(request.spec), yieldEverySteps: Infinity });
      await counter.count(toWarmUpText(WARM_UP_CHARACTERS));
      counters.set(request.tokenizer, counter);
      return { kind: 'loaded', tokenizer: request.tokenizer };
    } catch (error) {
      return { kind: 'load-failed', tokenizer: request.tokenizer, message: (error as Error).message };
    }
  }
  const counter = counters.get(request.tokenizer);
  if (counter === undefined)
    return { kind: 'count-failed', id: request.id, message: `${request.tokenizer} is not loaded` };
  try {
    return await countSegment(counter, request);
  } catch (error) {
    return { kind: 'count-failed', id: request.id, message: (error as Error).message };
  }
}

// Worker entry: answers the pool's requests one at a time, in the order they come.
let queue = Promise.resolve();
parentPort?.on('message', (request: CountThreadRequest) => {
  queue = queue.then(async () => parentPort?.postMessage(await answer(request)));
});
