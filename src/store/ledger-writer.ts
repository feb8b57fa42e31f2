import type { Clock } from '../shared/clock.js';
import type { Spool } from './spool.js';

/** Where ledger rows go: the database. Must be idempotent (a replay may write a row twice); throws when it cannot write. */
export interface LedgerSink<Row> {
  write(rows: readonly Row[]): Promise<void>;
}

export interface LedgerWriterOptions<Row> {
  sink: LedgerSink<Row>;
  /** Rows the sink could not take wait here, on disk, until it can. */
  spool: Spool<Row>;
  clock: Clock;
  /** Rows per write. @default 500 */
  maxBatch?: number;
  /** Rows held in memory at most; beyond them rows go straight to the spool. @default 20000 */
  maxQueue?: number;
  /** The first wait after a failed write before the sink is tried again, ms; doubles up to maxRetryMs. @default 1000 */
  retryMs?: number;
  /** @default 30000 */
  maxRetryMs?: number;
  /** Each failed write (the database unreachable, a rejected statement). */
  onError?: (error: unknown) => void;
}

/** How far behind the ledger is: rows in memory, rows on disk, and whether the sink is failing. */
export interface LedgerBacklog {
  queued: number;
  spooled: number;
  spoolBytes: number;
  /** True from a failed write until a write succeeds again. */
  failing: boolean;
  /** Rows the sink took since start (a replayed row may count again). */
  written: number;
}

export interface LedgerWriter<Row> {
  /** Takes a row off the request path: never blocks, never throws, never drops it. */
  add(row: Row): void;
  /**
   * Writes what is waiting: spooled rows first (oldest segment first, while the sink takes them),
   * then the queue in batches; a batch the sink refuses goes to the spool. Calls are serialized.
   */
  flush(): Promise<void>;
  backlog(): LedgerBacklog;
  /** Flushes once more; what the sink still refuses stays in the spool for the next start. */
  close(): Promise<void>;
}

/**
 * Ledger rows written off the request path in batches, with a spool on disk for when the database is
 * away: no row is lost (a full queue and a refused batch both go to the spool) and none is written
 * twice (the sink's inserts are idempotent, so a replay cut short is simply replayed again). While
 * rows are spooled, new batches are spooled behind them, so the database receives rows in the order
 * they came (but for a batch that was already in flight when the database went away).
 */
export function createLedgerWriter<Row>(options: LedgerWriterOptions<Row>): LedgerWriter<Row> {
  const { sink, spool, clock } = options;
  const maxBatch = options.maxBatch ?? 500;
  const maxQueue = options.maxQueue ?? 20_000;
  const firstRetryMs = options.retryMs ?? 1000;
  const maxRetryMs = options.maxRetryMs ?? 30_000;
  let queue: Row[] = [];
  let failing = false;
  let retryMs = firstRetryMs;
  let retryAt = 0;
  let written = 0;
  let running: Promise<void> | undefined;
  let spilling: Promise<void> = Promise.resolve();

  const failed = (error: unknown): void => {
    failing = true;
    retryAt = clock.now() + retryMs;
    retryMs = Math.min(retryMs * 2, maxRetryMs);
    options.onError?.(error);
  };
  const succeeded = (rows: number): void => {
    failing = false;
    retryMs = firstRetryMs;
    written += rows;
  };

  /** Writes to the sink; false (and the backoff set) when it refused. */
  const tryWrite = async (rows: readonly Row[]): Promise<boolean> => {
    try {
      await sink.write(rows);
      succeeded(rows.length);
      return true;
    } catch (error) {
      failed(error);
      return false;
    }
  };

  /** Spooled segments, oldest first, while the sink takes them. */
  const replay = async (): Promise<void> => {
    while (spool.hasRows() && (!failing || clock.now() >= retryAt)) {
      const segment = await spool.oldest();
      if (segment === undefined) return;
      for (let start = 0; start < segment.rows.length; start += maxBatch)
        if (!(await tryWrite(segment.rows.slice(start, start + maxBatch)))) return;
      await spool.remove(segment.id);
    }
  };

  /** Spools a batch the sink did not take; when even the disk refuses, it goes back to the queue's head. */
  const spoolOrKeep = async (batch: readonly Row[]): Promise<boolean> => {
    try {
      await spool.append(batch);
      return true;
    } catch (error) {
      options.onError?.(error);
      queue = [...batch, ...queue];
      return false;
    }
  };

  const drain = async (): Promise<void> => {
    try {
      await spilling;
      await replay();
    } catch (error) {
      // the spool's disk failed: what it holds stays there; the queue is still written below
      options.onError?.(error);
    }
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
      const mayWrite = !spool.hasRows() && (!failing || clock.now() >= retryAt);
      if (mayWrite && (await tryWrite(batch))) continue;
      if (!(await spoolOrKeep(batch))) return;
    }
  };

  const flush = (): Promise<void> => {
    running ??= drain().finally(() => {
      running = undefined;
    });
    return running;
  };

  return {
    add(row) {
      queue.push(row);
      if (queue.length >= maxQueue) {
        // the database is behind or away: the rows in memory go to disk instead of growing the heap
        const rows = queue;
        queue = [];
        spilling = spilling.then(async () => {
          await spoolOrKeep(rows);
        });
      } else if (queue.length >= maxBatch && running === undefined) void flush();
    },
    flush: async () => {
      // a flush asked for while one runs waits for it, then writes what came meanwhile
      if (running !== undefined) await running;
      await flush();
    },
    backlog: () => {
      const size = spool.size();
      return { queued: queue.length, spooled: size.rows, spoolBytes: size.bytes, failing, written };
    },
    close: async () => {
      if (running !== undefined) await running;
      await flush();
      await spilling;
    },
  };
}
