import { mkdir } from 'node:fs/promises';
import type { PGlite, Results } from '@electric-sql/pglite';
import type { Database, QueryResult, Queryable, Session } from './database.js';
import { runTransaction, type TransactionConnection } from './run-transaction.js';
import { createSerialQueue } from './serial-queue.js';

function toResult<R>(result: Results<R> | undefined): QueryResult<R> {
  if (result === undefined) return { rows: [], rowCount: 0 };
  return { rows: result.rows, rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length };
}

function connectionOf(pglite: PGlite): TransactionConnection {
  return {
    query: async <R extends object>(text: string, params: readonly unknown[] = []) =>
      toResult(await pglite.query<R>(text, [...params])),
    command: async (text) => (await pglite.exec(text)).at(-1)?.command ?? '',
  };
}

/** Text without params may hold several statements (the simple protocol, PGlite's `exec`). */
function sessionOf(pglite: PGlite): Session {
  return {
    query: async (text, params) =>
      params !== undefined && params.length > 0
        ? toResult(await pglite.query<Record<string, unknown>>(text, [...params]))
        : toResult((await pglite.exec(text)).at(-1)),
  };
}

/**
 * PostgreSQL embedded in this process (PGlite, WebAssembly), its files under `dir` (created when
 * missing). PGlite loads on the first call, so a process that never opens it does not load the
 * WebAssembly. PGlite is one connection: every query, transaction and session here goes through one
 * queue, so a statement from elsewhere never lands inside someone's open transaction. One process
 * at a time may open a `dir`.
 */
export async function openEmbedded(dir: string): Promise<Database> {
  await mkdir(dir, { recursive: true });
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = await PGlite.create(dir);
  const inTurn = createSerialQueue();
  const connection = connectionOf(pglite);
  const query: Queryable['query'] = (text, params) => inTurn(() => connection.query(text, params));
  return {
    kind: 'embedded',
    query,
    transaction: (fn) => inTurn(() => runTransaction(connection, fn)),
    withSession: (fn) => inTurn(() => fn(sessionOf(pglite))),
    close: () => inTurn(() => pglite.close()),
  };
}
