/** What a query returns: its rows, and the rows it returned or changed (the command tag's count). */
export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** Runs one statement at a time. */
export interface Queryable {
  /**
   * Runs one statement, with `params` bound to `$1`, `$2`, … (never values spliced into `text`).
   * Both back ends use the extended protocol, so text holding two statements is refused.
   */
  query<R extends object = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
  ): Promise<QueryResult<R>>;
}

/**
 * One connection held for a tool that drives its own session (node-pg-migrate): text without
 * params may hold several statements, and session-level state (advisory locks, SET) stays put.
 */
export interface Session {
  query(text: string, params?: readonly unknown[]): Promise<QueryResult<Record<string, unknown>>>;
}

/** The database the rest of autotier uses: a PostgreSQL server, or PGlite embedded in the process. */
export interface Database extends Queryable {
  readonly kind: 'postgres' | 'embedded';
  /**
   * Runs `fn` inside BEGIN … COMMIT on one connection; a throw rolls back and is rethrown. Use only
   * `tx` inside `fn`: on the embedded back end `db.query` waits until the transaction ends.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs `fn` with one connection to itself, released (or, embedded, unqueued) when it settles. */
  withSession<T>(fn: (session: Session) => Promise<T>): Promise<T>;
  /** Waits for work already queued, then closes every connection. */
  close(): Promise<void>;
}
