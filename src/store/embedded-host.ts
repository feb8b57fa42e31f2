/**
 * The child process openEmbedded forks: PGlite on the directory given as its one argument, out of
 * the gateway's process (PGlite's WebAssembly heap grows by hundreds of MB and never shrinks).
 * Requests from the parent run one at a time, in the order they came. The child lives only as long
 * as its IPC channel: when the parent disconnects (close(), or the parent died) it closes PGlite and
 * exits. SIGINT and SIGTERM are left to the parent (a Ctrl-C or a stop reaches the whole process
 * group; the parent still needs the database to flush its ledger before it closes it).
 */
import { mkdir } from 'node:fs/promises';
import { PGlite, type Results } from '@electric-sql/pglite';
import { toHostError, type HostMessage, type HostRequest, type HostResult } from './embedded-protocol.js';
import { createSerialQueue, type SerialQueue } from './serial-queue.js';

/**
 * Small shared buffers (PostgreSQL's default is 128MB): the ledger's inserts and rollups do not need
 * more, and PGlite's memory grows to what it touched and never gives it back.
 */
const POSTGRESQL_CONF = ['shared_buffers=16MB'];

/** Time the child waits for PGlite to close after the parent went away, before it exits anyway, ms. */
const CLOSE_GRACE_MS = 10_000;

function toResult(result: Results | undefined): HostResult {
  if (result === undefined) return { rows: [], rowCount: 0, command: '' };
  return {
    rows: result.rows,
    rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length,
    command: result.command ?? '',
  };
}

function send(message: HostMessage): void {
  if (process.connected) process.send?.(message);
}

async function run(pglite: PGlite, request: HostRequest): Promise<HostResult> {
  switch (request.op) {
    case 'query':
      return toResult(await pglite.query(request.text, request.params));
    case 'exec':
      return toResult((await pglite.exec(request.text)).at(-1));
    case 'close':
      await pglite.close();
      return toResult(undefined);
  }
}

function serve(pglite: PGlite, inTurn: SerialQueue): void {
  process.on('message', (request: HostRequest) => {
    void inTurn(async () => {
      try {
        send({ type: 'reply', id: request.id, result: await run(pglite, request) });
      } catch (error) {
        send({ type: 'reply', id: request.id, error: toHostError(error) });
      }
    });
  });
  send({ type: 'ready' });
}

/** Opens PGlite on `dir` and serves the parent until it disconnects; then closes PGlite and exits. */
function host(dir: string): void {
  const inTurn = createSerialQueue();
  let pglite: PGlite | undefined;
  process.once('disconnect', () => {
    setTimeout(() => process.exit(1), CLOSE_GRACE_MS).unref();
    void inTurn(async () => {
      if (pglite !== undefined && !pglite.closed) await pglite.close();
    }).finally(() => process.exit(0));
  });
  void inTurn(async () => {
    try {
      await mkdir(dir, { recursive: true });
      pglite = await PGlite.create(dir, { postgresqlconf: POSTGRESQL_CONF });
    } catch (error) {
      process.stderr.write(`embedded-host: could not open PGlite on ${dir}: ${String(error)}\n`);
      // Exits once the message is out: exiting at once could cut it off.
      const failed: HostMessage = { type: 'failed', error: toHostError(error) };
      process.send?.(failed, undefined, {}, () => process.exit(1));
      return;
    }
    serve(pglite, inTurn);
  });
}

process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);
const dir = process.argv[2];
if (dir === undefined || process.send === undefined) {
  process.stderr.write(
    'embedded-host: run by openEmbedded (fork with an IPC channel), given the data directory\n',
  );
  process.exit(2);
}
host(dir);
