import type { Worker } from 'node:worker_threads';
import { RouterError } from '../shared/errors.js';
import { startWorkerEntry } from '../shared/start-worker-entry.js';
import { deepFreeze } from '../shared/deep-freeze.js';
import type { LoadedTable } from './load-routing-table.js';
import type { TableLoadReply, TableLoadRequest } from './table-load-worker.js';

export interface OffThreadLoaderOptions {
  /** A load that takes longer is abandoned (and its thread ended), ms. @default 30000 */
  timeoutMs?: number;
  /** Heap of the loading thread, MiB: a hostile table cannot take the process's memory. @default 512 */
  maxHeapMb?: number;
}

export interface OffThreadLoader {
  load(path: string, now: number): Promise<LoadedTable>;
  close(): Promise<void>;
}

/** The worker next to this file: the compiled `.js` in dist, the `.ts` source under tsx or vitest. */
function createLoaderWorker(maxHeapMb: number): Worker {
  const settings = { resourceLimits: { maxOldGenerationSizeMb: maxHeapMb } };
  return startWorkerEntry(new URL('./table-load-worker.js', import.meta.url), settings);
}

function toLoadError(path: string, reason: string): RouterError {
  return new RouterError({
    code: 'CONFIG_INVALID',
    message: `invalid routing table ${path}:\n  (file): ${reason}`,
    cause: [{ path: '(file)', message: reason }],
  });
}

interface Pending {
  path: string;
  resolve: (table: LoadedTable) => void;
  reject: (error: RouterError) => void;
  timer: NodeJS.Timeout;
}

/**
 * Loads routing tables on a worker thread: YAML parsing takes about 1 ms per KiB, and a reload must
 * not stop the event loop that serves requests (a 1 MiB table would hold it for a second). The
 * thread is started on the first load and kept for the next; it has its own heap limit, and a load
 * past the deadline ends it (the next load starts a fresh one).
 */
export function createOffThreadLoader(options: OffThreadLoaderOptions = {}): OffThreadLoader {
  const timeoutMs = options.timeoutMs ?? 30_000;
  let worker: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, Pending>();
  const failAll = (reason: string): void => {
    for (const [id, load] of pending) {
      clearTimeout(load.timer);
      load.reject(toLoadError(load.path, reason));
      pending.delete(id);
    }
  };
  const stop = (): void => {
    const ending = worker;
    worker = undefined;
    void ending?.terminate();
  };
  const start = (): Worker => {
    const started = createLoaderWorker(options.maxHeapMb ?? 512);
    started.unref();
    started.on('message', (reply: TableLoadReply) => {
      const load = pending.get(reply.id);
      if (load === undefined) return;
      pending.delete(reply.id);
      clearTimeout(load.timer);
      if (reply.ok) load.resolve(deepFreeze(reply.loaded as LoadedTable));
      else
        load.reject(
          new RouterError({ code: 'CONFIG_INVALID', message: reply.message, cause: reply.problems }),
        );
    });
    started.on('error', (error: unknown) => {
      if (worker === started) worker = undefined;
      failAll(`the loading thread failed: ${error instanceof Error ? error.message : String(error)}`);
    });
    started.on('exit', (code) => {
      if (worker === started) worker = undefined;
      failAll(`the loading thread exited with code ${code}`);
    });
    return started;
  };
  return {
    load(path, now) {
      worker ??= start();
      const id = (nextId += 1);
      const request: TableLoadRequest = { id, path, now };
      return new Promise<LoadedTable>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(toLoadError(path, `loading took longer than ${timeoutMs} ms`));
          stop();
        }, timeoutMs);
        pending.set(id, { path, resolve, reject, timer });
        worker?.postMessage(request);
      });
    },
    async close() {
      failAll('the loader was closed');
      const ending = worker;
      worker = undefined;
      await ending?.terminate();
    },
  };
}
