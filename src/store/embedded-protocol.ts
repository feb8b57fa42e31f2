/**
 * The messages between openEmbedded (the parent) and embedded-host.ts (the child that runs PGlite),
 * sent with `serialization: 'advanced'` so Dates, Buffers, typed arrays and BigInts arrive as they left.
 */

/** One statement with params bound (PGlite `query`, the extended protocol). */
export interface QueryRequest {
  id: number;
  op: 'query';
  text: string;
  params: unknown[];
}

/** Text that may hold several statements (PGlite `exec`, the simple protocol); replies with the last result. */
export interface ExecRequest {
  id: number;
  op: 'exec';
  text: string;
}

/** Closes PGlite; the parent then disconnects, and the child exits. */
export interface CloseRequest {
  id: number;
  op: 'close';
}

export type HostRequest = QueryRequest | ExecRequest | CloseRequest;

export interface HostResult {
  rows: Record<string, unknown>[];
  rowCount: number;
  /** The command tag of the (last) statement: `SELECT`, `COMMIT`, `ROLLBACK`, …; '' when none ran. */
  command: string;
}

/** The fields of a PostgreSQL error (pg's and PGlite's DatabaseError) that survive the trip. */
export const ERROR_FIELDS = [
  'severity',
  'code',
  'detail',
  'hint',
  'position',
  'internalPosition',
  'internalQuery',
  'where',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'file',
  'line',
  'routine',
] as const;

export type ErrorField = (typeof ERROR_FIELDS)[number];

export interface HostError {
  name: string;
  message: string;
  fields: Partial<Record<ErrorField, string>>;
}

export type HostMessage =
  | { type: 'ready' }
  | { type: 'failed'; error: HostError }
  | { type: 'reply'; id: number; result: HostResult }
  | { type: 'reply'; id: number; error: HostError };

/** What a thrown value becomes on the way to the parent: its message, name and PostgreSQL fields. */
export function toHostError(thrown: unknown): HostError {
  if (!(thrown instanceof Error)) return { name: 'Error', message: String(thrown), fields: {} };
  const fields: HostError['fields'] = {};
  const source = thrown as Error & Partial<Record<ErrorField, unknown>>;
  for (const field of ERROR_FIELDS) {
    const value = source[field];
    if (typeof value === 'string') fields[field] = value;
  }
  return { name: thrown.name, message: thrown.message, fields };
}

/** An error PGlite threw in the child, with the PostgreSQL fields it had (`code`, `constraint`, …). */
export class EmbeddedDatabaseError extends Error {
  constructor(error: HostError) {
    super(error.message);
    this.name = error.name === 'error' || error.name === 'Error' ? 'EmbeddedDatabaseError' : error.name;
    Object.assign(this, error.fields);
  }
  declare readonly severity?: string;
  declare readonly code?: string;
  declare readonly detail?: string;
  declare readonly hint?: string;
  declare readonly position?: string;
  declare readonly where?: string;
  declare readonly schema?: string;
  declare readonly table?: string;
  declare readonly column?: string;
  declare readonly dataType?: string;
  declare readonly constraint?: string;
  declare readonly routine?: string;
}
