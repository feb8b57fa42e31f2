import { EventEmitter } from 'node:events';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toHostileText } from '../../test/helpers/hostile-texts.js';
import { createCancelController } from '../shared/cancel-signal.js';
import { startWorkerEntry } from '../shared/start-worker-entry.js';
import { createCountPool, type CountPool } from './count-pool.js';
import type { CountThreadReply } from './count-worker.js';
import { createSharedSpecLoader } from './load-shared-spec.js';
import { loadTextCounter } from './load-text-counter.js';
import { createTextCounter, type TextCounter } from './text-counter.js';
import { fromSharedSpec, type SharedTokenizerSpec } from './tokenizer-spec.js';

const THREADS = 2;

/**
 * A thread that answers every load at once and exits on its first count, as a crashing thread would
 * (CommonJS: an eval worker is a script).
 */
const CRASHING_WORKER = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (request) => {
  if (request.kind === 'load') parentPort.postMessage({ kind: 'loaded', tokenizer: request.tokenizer });
  else process.exit(3);
});`;

describe('counting on a pool of threads', () => {
  let local: TextCounter;
  /** Emits each count reply of the pool's threads (the test listens beside the pool). */
  const replies = new EventEmitter();
  const pool: CountPool = createCountPool({
    threads: THREADS,
    startThread: () => {
      const worker = startWorkerEntry(new URL('./count-worker.js', import.meta.url));
      worker.on('message', (reply: CountThreadReply) => {
        if (reply.kind === 'counted') replies.emit('counted', reply);
      });
      return worker;
    },
  });
  /** The next `count` count replies of the threads. */
  const nextReplies = (count: number): Promise<CountThreadReply[]> =>
    new Promise((resolve) => {
      const received: CountThreadReply[] = [];
      const receive = (reply: CountThreadReply): void => {
        received.push(reply);
        if (received.length < count) return;
        replies.off('counted', receive);
        resolve(received);
      };
      replies.on('counted', receive);
    });
  beforeAll(async () => {
    local = await loadTextCounter('qwen3', { yieldToEventLoop: () => Promise.resolve() });
    expect(await pool.prepare('qwen3')).toBe(THREADS);
  }, 60_000);
  afterAll(() => pool.close());

  it.each(['repeated', 'base64', 'dna', 'cjk', 'minified-js', 'hangul', 'emoji'] as const)(
    'counts %s exactly as in-process, split over the threads',
    async (kind) => {
      const text = toHostileText(kind, 150_000, 5);
      const pooled = await pool.count('qwen3', text);
      expect(pooled?.segments).toHaveLength(THREADS);
      expect(pooled?.tokens).toBe(await local.count(text));
    },
  );

  it('stops every thread once the segments together pass stopAbove, near the in-process work', async () => {
    const text = toHostileText('dna', 400_000, 6);
    const whole = await pool.count('qwen3', text);
    const stopAbove = Math.floor((whole?.tokens ?? 0) / 4);
    const serial = { steps: 0 };
    const serialTokens = await local.count(text, { stopAbove, meter: serial });
    const stopped = await pool.count('qwen3', text, { stopAbove });
    expect(stopped?.tokens).toBeGreaterThan(stopAbove);
    expect(serialTokens).toBeGreaterThan(stopAbove);
    // each segment holds about twice stopAbove: a thread that stopped before its end stopped on the sum
    stopped?.segments.forEach((segment, index) => {
      expect(segment.tokens).toBeLessThan(whole?.segments[index]?.tokens ?? 0);
    });
    // the threads together did about the serial work (a window or so more each), not a segment each
    const steps = stopped?.segments.reduce((sum, segment) => sum + segment.steps, 0) ?? 0;
    expect(steps).toBeLessThan(serial.steps * 1.05 + THREADS * 40_000);
  });

  it('stops the threads and answers CLIENT_CLOSED when the client goes away', async () => {
    const text = toHostileText('cjk', 1_000_000, 8);
    const full = { steps: 0 };
    await local.count(text, { meter: full });
    const controller = createCancelController();
    const answered = nextReplies(THREADS);
    const counting = pool.count('qwen3', text, { signal: controller.signal });
    controller.abort();
    await expect(counting).rejects.toMatchObject({ code: 'CLIENT_CLOSED' });
    // the threads stopped at their next window: a few windows' work, not their segments'
    const steps = (await answered).reduce(
      (sum, reply) => sum + (reply.kind === 'counted' ? reply.steps : 0),
      0,
    );
    expect(steps).toBeLessThan(full.steps / 10);
    const cancelled = createCancelController();
    cancelled.abort();
    await expect(pool.count('qwen3', text, { signal: cancelled.signal })).rejects.toMatchObject({
      code: 'CLIENT_CLOSED',
    });
  });
});

/** A thread that loads anything at once and counts every segment as 1 token. */
const ONE_TOKEN_WORKER = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (request) => {
  if (request.kind === 'load') parentPort.postMessage({ kind: 'loaded', tokenizer: request.tokenizer });
  else parentPort.postMessage({ kind: 'counted', id: request.id, tokens: 1, steps: 1 });
});`;

/** Tables for threads that never read them. */
const EMPTY_SPEC: SharedTokenizerSpec = {
  byteIds: new Int32Array(256),
  pairs: { slots: new Int32Array(4), dense: new Int32Array(1), size: 0 },
  pattern: 'o200k',
  normalizeNfc: false,
  addedTokens: [],
};

describe('a pool at rest', () => {
  it('ends its threads once no count has run for idleStopMs, and starts them again on the next long text', async () => {
    const exits: Promise<number>[] = [];
    const pool = createCountPool({
      threads: 2,
      idleStopMs: 50,
      loadSpec: () => Promise.resolve(EMPTY_SPEC),
      startThread: () => {
        const worker = new Worker(ONE_TOKEN_WORKER, { eval: true });
        exits.push(new Promise((resolve) => worker.once('exit', resolve)));
        return worker;
      },
    });
    expect(await pool.prepare('qwen3')).toBe(2);
    expect((await pool.count('qwen3', 'x'.repeat(100_000)))?.tokens).toBe(2);
    // both threads end by themselves: the test waits for their exits, not for a time
    await Promise.all(exits);
    expect(exits).toHaveLength(2);
    expect(await pool.count('qwen3', 'x'.repeat(100_000))).toBeUndefined();
    expect(exits).toHaveLength(4);
    expect(await pool.prepare('qwen3')).toBe(2);
    expect((await pool.count('qwen3', 'x'.repeat(100_000)))?.tokens).toBe(2);
    await pool.close();
  });

  it('hands its threads the tables it holds, over shared memory (no copy per thread)', async () => {
    const load = createSharedSpecLoader();
    const spec = await load('o200k_base');
    expect(spec.pairs.slots.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(spec.pairs.dense.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(spec.byteIds.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(await load('o200k_base')).toBe(spec);
    const text = toHostileText('minified-js', 20_000, 3);
    const shared = createTextCounter({ spec: fromSharedSpec(spec) });
    const own = await loadTextCounter('o200k_base');
    expect(await shared.count(text)).toBe(await own.count(text));
  }, 60_000);
});

describe('a pool that cannot count yet or loses a thread', () => {
  it('has no count until its threads have the tokenizer, and starts loading it on the first', async () => {
    const started: Worker[] = [];
    const pool = createCountPool({
      threads: 2,
      startThread: () => {
        const worker = new Worker(CRASHING_WORKER, { eval: true });
        started.push(worker);
        return worker;
      },
    });
    expect(await pool.count('qwen3', 'x'.repeat(10_000))).toBeUndefined();
    expect(started).toHaveLength(2);
    expect(await pool.prepare('qwen3')).toBe(2);
    await pool.close();
    expect(await pool.count('qwen3', 'x')).toBeUndefined();
  });

  it('gives up a count whose thread exits, and starts a new thread for the next', async () => {
    let starts = 0;
    const pool = createCountPool({
      threads: 2,
      startThread: () => {
        starts += 1;
        return new Worker(CRASHING_WORKER, { eval: true });
      },
    });
    await pool.prepare('qwen3');
    expect(await pool.count('qwen3', toHostileText('dna', 50_000, 1))).toBeUndefined();
    expect(starts).toBe(2);
    await pool.prepare('qwen3');
    expect(starts).toBe(4);
    await pool.close();
  });

  it('counts nothing with zero threads', async () => {
    const pool = createCountPool({ threads: 0 });
    expect(await pool.prepare('qwen3')).toBe(0);
    expect(await pool.count('qwen3', 'x'.repeat(300_000))).toBeUndefined();
    await pool.close();
  });
});
