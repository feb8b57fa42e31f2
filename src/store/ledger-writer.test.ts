import { appendFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../shared/clock.js';
import { createLedgerWriter, type LedgerSink } from './ledger-writer.js';
import { openSpool } from './spool.js';

interface Row {
  id: number;
}

/** An idempotent sink like the database's inserts: keeps each id once, in the order first written. */
function createSink(): LedgerSink<Row> & {
  up: boolean;
  ids: number[];
  writes: number;
  failAfter: number | undefined;
} {
  const seen = new Set<number>();
  const sink = {
    up: true,
    ids: [] as number[],
    writes: 0,
    failAfter: undefined as number | undefined,
    write(rows: readonly Row[]): Promise<void> {
      if (!sink.up) return Promise.reject(new Error('connection refused'));
      if (sink.failAfter !== undefined && sink.writes >= sink.failAfter) {
        sink.up = false;
        return Promise.reject(new Error('connection reset'));
      }
      sink.writes += 1;
      for (const row of rows)
        if (!seen.has(row.id)) {
          seen.add(row.id);
          sink.ids.push(row.id);
        }
      return Promise.resolve();
    },
  };
  return sink;
}

const rows = (from: number, count: number): Row[] =>
  Array.from({ length: count }, (_, index) => ({ id: from + index }));
const range = (from: number, count: number): number[] => rows(from, count).map((row) => row.id);

describe('the ledger writer', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'autotier-spool-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function start(options: { maxBatch?: number; maxQueue?: number } = {}) {
    const clock = createManualClock(1000);
    const sink = createSink();
    const spool = await openSpool<Row>({ dir, segmentBytes: 200 });
    const errors: unknown[] = [];
    const writer = createLedgerWriter({
      sink,
      spool,
      clock,
      retryMs: 1000,
      onError: (error) => errors.push(error),
      ...options,
    });
    return { clock, sink, spool, writer, errors };
  }

  it('writes full batches as they fill and the rest on flush, each row once', async () => {
    const { sink, writer } = await start({ maxBatch: 10 });
    for (const row of rows(1, 25)) writer.add(row);
    await writer.flush();
    expect(sink.ids).toEqual(range(1, 25));
    expect(sink.writes).toBe(3);
    expect(writer.backlog()).toMatchObject({ queued: 0, spooled: 0, failing: false, written: 25 });
  });

  it('spools what the database refuses and replays it in order when it returns, after the backoff', async () => {
    const { clock, sink, writer, errors } = await start({ maxBatch: 10 });
    sink.up = false;
    for (const row of rows(1, 30)) writer.add(row);
    await writer.flush();
    expect(sink.ids).toEqual([]);
    expect(writer.backlog()).toMatchObject({ queued: 0, spooled: 30, failing: true });
    expect(errors.length).toBeGreaterThan(0);
    sink.up = true;
    // rows that come while rows are spooled wait behind them, on disk
    for (const row of rows(31, 5)) writer.add(row);
    await writer.flush();
    expect(sink.ids).toEqual([]);
    expect(writer.backlog().spooled).toBe(35);
    clock.advance(1000);
    await writer.flush();
    expect(sink.ids).toEqual(range(1, 35));
    expect(writer.backlog()).toMatchObject({ spooled: 0, failing: false });
    expect(await readdir(dir)).toEqual([]);
  });

  it('a replay cut short by a second failure loses nothing and writes nothing twice', async () => {
    const { clock, sink, writer } = await start({ maxBatch: 4 });
    sink.up = false;
    for (const row of rows(1, 40)) writer.add(row);
    await writer.flush();
    sink.up = true;
    sink.failAfter = 2;
    clock.advance(1000);
    await writer.flush();
    expect(sink.ids.length).toBeLessThan(40);
    sink.failAfter = undefined;
    sink.up = true;
    clock.advance(2000);
    await writer.flush();
    expect(sink.ids).toEqual(range(1, 40));
  });

  it('puts a full queue on disk instead of holding it in memory', async () => {
    const { sink, writer } = await start({ maxBatch: 1000, maxQueue: 50 });
    sink.up = false;
    for (const row of rows(1, 120)) writer.add(row);
    await writer.flush();
    expect(writer.backlog().queued).toBe(0);
    expect(writer.backlog().spooled).toBe(120);
    expect(sink.writes).toBe(0);
  });

  it('keeps spooled rows across a restart and writes them at the next start', async () => {
    const first = await start({ maxBatch: 10 });
    first.sink.up = false;
    for (const row of rows(1, 12)) first.writer.add(row);
    await first.writer.close();
    const second = await start({ maxBatch: 10 });
    expect(second.spool.size().rows).toBe(12);
    second.writer.add({ id: 13 });
    await second.writer.flush();
    expect(second.sink.ids).toEqual(range(1, 13));
  });

  it('skips a line cut by a crash and counts it, without losing the rows around it', async () => {
    const first = await start();
    first.sink.up = false;
    first.writer.add({ id: 1 });
    await first.writer.close();
    const [segment] = await readdir(dir);
    await appendFile(join(dir, segment ?? ''), '{"id": 2, "tru');
    const second = await start();
    second.writer.add({ id: 3 });
    await second.writer.flush();
    expect(second.sink.ids).toEqual([1, 3]);
    expect(second.spool.size().skippedLines).toBe(1);
  });
});
