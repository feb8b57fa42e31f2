import type { Queryable } from './database.js';

/** One connection, as a transaction needs it. */
export interface TransactionConnection extends Queryable {
  /** Runs a statement without params and returns its command tag (`COMMIT`, `ROLLBACK`, …). */
  command(text: string): Promise<string>;
}

/** COMMIT found the transaction aborted (a failed statement was caught inside it), so nothing was saved. */
export class TransactionAbortedError extends Error {
  constructor() {
    super('COMMIT rolled back: a statement inside the transaction failed and the transaction was aborted');
    this.name = 'TransactionAbortedError';
  }
}

/** The transaction failed and so did its ROLLBACK: the connection is in an unknown state. */
export class RollbackFailedError extends Error {
  constructor(failure: unknown, rollbackFailure: unknown) {
    super('the transaction failed and its ROLLBACK failed too', { cause: failure });
    this.name = 'RollbackFailedError';
    this.rollbackFailure = rollbackFailure;
  }
  readonly rollbackFailure: unknown;
}

const ENDED = 'the transaction has ended: use its tx only inside the transaction callback';

/**
 * BEGIN, `fn`, COMMIT on one connection; a throw from `fn` rolls back and is rethrown. The `tx`
 * given to `fn` refuses statements once the transaction has ended, so a leaked `tx` cannot run
 * statements on a connection that is by then someone else's.
 */
export async function runTransaction<T>(
  connection: TransactionConnection,
  fn: (tx: Queryable) => Promise<T>,
): Promise<T> {
  let open = true;
  const tx: Queryable = {
    query: (text, params) => (open ? connection.query(text, params) : Promise.reject(new Error(ENDED))),
  };
  await connection.command('BEGIN');
  try {
    let result: T;
    try {
      result = await fn(tx);
    } catch (failure) {
      await connection.command('ROLLBACK').catch((rollbackFailure: unknown) => {
        throw new RollbackFailedError(failure, rollbackFailure);
      });
      throw failure;
    }
    if ((await connection.command('COMMIT')) === 'ROLLBACK') throw new TransactionAbortedError();
    return result;
  } finally {
    open = false;
  }
}
