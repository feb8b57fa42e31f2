import type { Queryable } from './database.js';
import { toInsertStatements, type InsertTable } from './insert-statements.js';

/** `confirmed`: the upstream's usage; `estimated`: autotier's count; `unknown`: neither. */
export type UsageState = 'confirmed' | 'estimated' | 'unknown';

/** One request, as the `requests` table keeps it. */
export interface RequestRow {
  requestId: string;
  keyAlias: string | null;
  keyHash: string | null;
  endpoint: string;
  modelAsked: string | null;
  complexity: string | null;
  tier: string | null;
  cause: string | null;
  tableVersion: string | null;
  /** The HTTP status the client got. */
  status: number;
  errorCode: string | null;
  startedAt: Date;
  firstTokenAt: Date | null;
  finishedAt: Date | null;
  promptTokens: number | null;
  completionTokens: number | null;
  usageState: UsageState;
  /** In the unit of the deployments' prices (docs/costs.md); null when a deployment has none. */
  cost: number | null;
}

/** One upstream or classifier call of a request, as the `attempts` table keeps it. */
export interface AttemptRow {
  requestId: string;
  /** 1 for the first attempt of the request. */
  attemptNo: number;
  kind: 'upstream' | 'classifier';
  deployment: string;
  responseId: string | null;
  /** The upstream's HTTP status; null when no response came. */
  status: number | null;
  errorCode: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  /** Time to first token, ms. */
  ttftMs: number | null;
  durationMs: number | null;
  /** In the unit of the deployments' prices (docs/costs.md); null when a deployment has none. */
  cost: number | null;
}

const REQUESTS: InsertTable<RequestRow> = {
  name: 'requests',
  columns: [
    ['request_id', (row) => row.requestId],
    ['key_alias', (row) => row.keyAlias],
    ['key_hash', (row) => row.keyHash],
    ['endpoint', (row) => row.endpoint],
    ['model_asked', (row) => row.modelAsked],
    ['complexity', (row) => row.complexity],
    ['tier', (row) => row.tier],
    ['cause', (row) => row.cause],
    ['table_version', (row) => row.tableVersion],
    ['status', (row) => row.status],
    ['error_code', (row) => row.errorCode],
    ['started_at', (row) => row.startedAt],
    ['first_token_at', (row) => row.firstTokenAt],
    ['finished_at', (row) => row.finishedAt],
    ['prompt_tokens', (row) => row.promptTokens],
    ['completion_tokens', (row) => row.completionTokens],
    ['usage_state', (row) => row.usageState],
    ['cost', (row) => row.cost],
  ],
};

const ATTEMPTS: InsertTable<AttemptRow> = {
  name: 'attempts',
  columns: [
    ['request_id', (row) => row.requestId],
    ['attempt_no', (row) => row.attemptNo],
    ['kind', (row) => row.kind],
    ['deployment', (row) => row.deployment],
    ['response_id', (row) => row.responseId],
    ['status', (row) => row.status],
    ['error_code', (row) => row.errorCode],
    ['prompt_tokens', (row) => row.promptTokens],
    ['completion_tokens', (row) => row.completionTokens],
    ['ttft_ms', (row) => row.ttftMs],
    ['duration_ms', (row) => row.durationMs],
    ['cost', (row) => row.cost],
  ],
};

async function insertAll<Row>(db: Queryable, table: InsertTable<Row>, rows: readonly Row[]): Promise<number> {
  let inserted = 0;
  for (const { text, params } of toInsertStatements(table, rows)) {
    inserted += (await db.query(text, params)).rowCount;
  }
  return inserted;
}

/**
 * Inserts request rows, skipping any whose request_id is already there, and returns how many were
 * new. Replaying a batch (after a crash, from the spool) is safe. Several statements for a large
 * batch, not one transaction: pass a transaction's `tx` as `db` to make it all or nothing.
 */
export function insertRequests(db: Queryable, rows: readonly RequestRow[]): Promise<number> {
  return insertAll(db, REQUESTS, rows);
}

/** Inserts attempt rows, skipping any whose (request_id, attempt_no) is already there; returns how many were new. */
export function insertAttempts(db: Queryable, rows: readonly AttemptRow[]): Promise<number> {
  return insertAll(db, ATTEMPTS, rows);
}
