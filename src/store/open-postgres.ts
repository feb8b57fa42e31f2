import pg from 'pg';
import type { Logger } from '../shared/logger.js';
import type { Database, QueryResult, Session } from './database.js';
import { RollbackFailedError, runTransaction, type TransactionConnection } from './run-transaction.js';
import { unsupportedUrlParts } from './postgres-url.js';

export interface PostgresOptions {
  logger: Logger;
  /** Connections open at most; callers beyond them wait in the pool's queue. @default 10 */
  maxConnections?: number;
  /** Time to open a connection (or wait for a free one), ms, before the query fails. @default 5000 */
  connectTimeoutMs?: number;
  /** The server's `statement_timeout` on every connection, ms; 0 turns it off. @default 10000 */
  statementTimeoutMs?: number;
  /** An idle connection is closed after this long, ms. @default 30000 */
  idleTimeoutMs?: number;
}

type Client = pg.PoolClient;

/** pg's own QueryConfig field (not in @types/pg): the extended protocol even without params. */
type ExtendedQuery = pg.QueryConfig & { queryMode: 'extended' };

async function runQuery<R>(client: pg.Pool | Client, text: string, params: readonly unknown[] = []) {
  const config: ExtendedQuery = { text, values: [...params], queryMode: 'extended' };
  const result = await client.query(config);
  return { rows: result.rows as R[], rowCount: result.rowCount ?? result.rows.length };
}

function toTransactionConnection(client: Client): TransactionConnection {
  return {
    query: (text, params) => runQuery(client, text, params),
    command: async (text) => (await client.query(text)).command,
  };
}

/**
 * A PostgreSQL server through a bounded `pg.Pool`. `url` is passed to pg as it is (its query string
 * may set `sslmode`, `application_name`, …); see `unsupportedUrlParts` for what pg does not do.
 */
export function openPostgres(url: string, options: PostgresOptions): Database {
  const { logger } = options;
  for (const part of unsupportedUrlParts(url)) logger.warn(`postgres: ${part}`);
  const pool = new pg.Pool({
    connectionString: url,
    application_name: 'autotier',
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    statement_timeout: options.statementTimeoutMs ?? 10_000,
    idleTimeoutMillis: options.idleTimeoutMs ?? 30_000,
  });
  const logError = (error: Error & { code?: string }): void => {
    logger.error('postgres: connection failed', { code: error.code, message: error.message });
  };
  // An idle connection that dies (server restart, network) emits 'error' on the pool; unheard, it
  // would crash the process. The pool drops that connection and opens a new one when next asked.
  pool.on('error', logError);

  async function withClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    client.on('error', logError);
    let broken: Error | undefined;
    try {
      return await fn(client);
    } catch (error) {
      if (error instanceof RollbackFailedError) broken = error;
      throw error;
    } finally {
      client.off('error', logError);
      client.release(broken);
    }
  }

  return {
    kind: 'postgres',
    query: <R extends object>(text: string, params?: readonly unknown[]): Promise<QueryResult<R>> =>
      runQuery<R>(pool, text, params),
    transaction: (fn) => withClient((client) => runTransaction(toTransactionConnection(client), fn)),
    withSession: (fn) =>
      withClient((client) => {
        const session: Session = {
          query: async (text, params) => {
            // Text of several statements without params returns one result per statement.
            const results: unknown = await client.query(text, params && [...params]);
            const last = (Array.isArray(results) ? results.at(-1) : results) as
              pg.QueryResult<Record<string, unknown>> | undefined;
            return { rows: last?.rows ?? [], rowCount: last?.rowCount ?? last?.rows.length ?? 0 };
          },
        };
        return fn(session);
      }),
    close: () => pool.end(),
  };
}
