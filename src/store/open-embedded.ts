import type { Logger } from '../shared/logger.js';
import type { Database, QueryResult, Session } from './database.js';
import { EmbeddedDatabaseError, type HostResult } from './embedded-protocol.js';
import { runTransaction, type TransactionConnection } from './run-transaction.js';
import { createSerialQueue } from './serial-queue.js';
import { startEmbeddedHost, type EmbeddedHost } from './start-embedded-host.js';

export interface EmbeddedOptions {
  /** Where the PGlite process's own output goes; without one, to this process's stderr, prefixed. */
  logger?: Logger;
}

/** The embedded database, and the process it runs in. */
export interface EmbeddedDatabase extends Database {
  readonly kind: 'embedded';
  /** The pid of the child process that runs PGlite. */
  readonly pid: number;
}

const CLOSED = 'the embedded database is closed';

function toResult<R>(result: HostResult): QueryResult<R> {
  return { rows: result.rows as R[], rowCount: result.rowCount };
}

function connectionOf(host: EmbeddedHost): TransactionConnection {
  return {
    query: async <R extends object>(text: string, params: readonly unknown[] = []) =>
      toResult<R>(await host.request({ op: 'query', text, params: [...params] })),
    command: async (text) => (await host.request({ op: 'exec', text })).command,
  };
}

/** Text without params may hold several statements (the simple protocol, PGlite's `exec`). */
function sessionOf(host: EmbeddedHost): Session {
  return {
    query: async (text, params) =>
      toResult(
        await (params !== undefined && params.length > 0
          ? host.request({ op: 'query', text, params: [...params] })
          : host.request({ op: 'exec', text })),
      ),
  };
}

/**
 * PostgreSQL embedded (PGlite, WebAssembly), its files under `dir` (created when missing), run in a
 * child process of its own (embedded-host.ts): PGlite's memory grows by hundreds of MB and never
 * shrinks, so it stays out of this process. PGlite is one connection: every query, transaction and
 * session here goes through one queue, so a statement from elsewhere never lands inside someone's
 * open transaction. One process at a time may open a `dir`. The child exits when this process does
 * (or on close); if it dies first, every call rejects with an error saying so, and it is not
 * restarted.
 */
export async function openEmbedded(dir: string, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  const host = await startEmbeddedHost(dir, { logger: options.logger });
  const inTurn = createSerialQueue();
  const connection = connectionOf(host);
  let closed = false;
  /** Queued work, refused once close() was called. */
  const inOrder = <T>(task: () => Promise<T>): Promise<T> =>
    closed ? Promise.reject(new Error(CLOSED)) : inTurn(task);
  return {
    kind: 'embedded',
    pid: host.pid,
    query: (text, params) => inOrder(() => connection.query(text, params)),
    transaction: (fn) => inOrder(() => runTransaction(connection, fn)),
    withSession: (fn) => inOrder(() => fn(sessionOf(host))),
    close: () => {
      if (closed) return Promise.resolve();
      closed = true;
      return inTurn(async () => {
        try {
          await host.request({ op: 'close' });
        } catch (error) {
          // PGlite's own failure to close is worth a throw; a child already gone has nothing to close.
          if (error instanceof EmbeddedDatabaseError) throw error;
        } finally {
          await host.disconnect();
        }
      });
    },
  };
}
