import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import {
  abuseResultSchema,
  latencyResultSchema,
  rateResultSchema,
  streamResultSchema,
  type AbuseResult,
  type LatencyResult,
  type LoadJobInput,
  type RateResult,
  type StreamResult,
} from './load-schema.js';

/**
 * Load helpers for the benchmark. `startLoadRunner` starts bench/load-worker.ts once in
 * its own Node process (so the generator never shares an event loop with a server under test) and
 * sends it one job at a time over IPC; every result is validated against load-schema.ts.
 */
export type { AbuseResult, LatencyResult, RateResult, StreamResult } from './load-schema.js';

export interface Target {
  /** Full URL, e.g. `${baseUrl}/chat/completions`. */
  url: string;
  /** JSON body: a string is sent as is, anything else is JSON.stringify'd. */
  body: unknown;
  headers?: Record<string, string>;
}

export interface LoadRunner {
  /** Concurrency-1 closed loop (autocannon, exact per-request times). */
  latency(
    options: Target & { requests: number; warmup?: number; maxDurationSeconds?: number },
  ): Promise<LatencyResult>;
  /** Open-loop constant rate (undici pool on a fixed schedule). */
  rate(
    options: Target & { rate: number; durationSeconds: number; connections?: number },
  ): Promise<RateResult>;
  /** SSE streams: time to first content chunk, inter-chunk gaps, stalls. */
  stream(
    options: Target & {
      streams: number;
      stallThresholdMs?: number;
      timeoutMs?: number;
      startIntervalMs?: number;
      /** Return the raw first-content times and gaps too. */
      samples?: boolean;
    },
  ): Promise<StreamResult>;
  /** Large or hostile bodies one at a time, with /health probed beside them. */
  abuse(options: Target & { healthUrl: string; requests: number; warmup?: number }): Promise<AbuseResult>;
  close(): Promise<void>;
}

type Reply = { id: number; result?: unknown; error?: string } | { ready: true };

export async function startLoadRunner(): Promise<LoadRunner> {
  const worker = fileURLToPath(new URL('./load-worker.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), worker], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  await waitForReady(child);
  child.on('message', (reply: Reply) => {
    if ('ready' in reply) return;
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.error !== undefined) waiter?.reject(new Error(`load worker: ${reply.error}`));
    else waiter?.resolve(reply.result);
  });
  child.once('exit', (code) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`load worker exited (${String(code)})`));
    pending.clear();
  });

  const run = async <Result>(job: LoadJobInput, schema: z.ZodType<Result>): Promise<Result> => {
    const id = nextId++;
    const result = await new Promise<unknown>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      child.send({ id, job });
    });
    return schema.parse(result);
  };

  return {
    latency: (options) =>
      run(
        {
          kind: 'latency',
          ...toTarget(options),
          requests: options.requests,
          warmup: options.warmup ?? 50,
          ...(options.maxDurationSeconds === undefined
            ? {}
            : { maxDurationSeconds: options.maxDurationSeconds }),
        },
        latencyResultSchema,
      ),
    rate: (options) =>
      run(
        {
          kind: 'rate',
          ...toTarget(options),
          rate: options.rate,
          durationSeconds: options.durationSeconds,
          connections: options.connections ?? 32,
        },
        rateResultSchema,
      ),
    stream: (options) =>
      run(
        {
          kind: 'stream',
          ...toTarget(options),
          streams: options.streams,
          stallThresholdMs: options.stallThresholdMs ?? 1000,
          timeoutMs: options.timeoutMs ?? 60_000,
          startIntervalMs: options.startIntervalMs ?? 0,
          samples: options.samples ?? false,
        },
        streamResultSchema,
      ),
    abuse: (options) =>
      run(
        {
          kind: 'abuse',
          ...toTarget(options),
          healthUrl: options.healthUrl,
          requests: options.requests,
          warmup: options.warmup ?? 2,
        },
        abuseResultSchema,
      ),
    close: async () => {
      process.removeListener('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function toTarget(options: Target): { url: string; body: string; headers: Record<string, string> } {
  const body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  return { url: options.url, body, headers: options.headers ?? {} };
}

async function waitForReady(child: ChildProcess): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const onMessage = (message: Reply): void => {
      if ('ready' in message) {
        child.off('message', onMessage);
        resolve();
      }
    };
    child.on('message', onMessage);
    child.once('exit', (code) =>
      reject(new Error(`load worker exited before it was ready (${String(code)})`)),
    );
    child.once('error', reject);
  });
}
