import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/store/database.js';
import { insertAttempts, insertRequests, type AttemptRow, type RequestRow } from '../../src/store/ledger.js';
import { migrate } from '../../src/store/migrate.js';
import { TransactionAbortedError } from '../../src/store/run-transaction.js';

/** Opens the database under test: the same one on every call, so closing and opening keeps rows. */
export type OpenDatabase = () => Promise<Database>;

export function requestRow(requestId: string, overrides: Partial<RequestRow> = {}): RequestRow {
  return {
    requestId,
    keyAlias: 'team-a',
    keyHash: 'hash-a',
    endpoint: 'chat',
    modelAsked: 'auto',
    complexity: 'medium',
    tier: 'mid',
    cause: 'heuristic',
    tableVersion: 'v1',
    status: 200,
    errorCode: null,
    startedAt: new Date('2026-12-06T10:00:00.000Z'),
    firstTokenAt: new Date('2026-12-06T10:00:00.250Z'),
    finishedAt: new Date('2026-12-06T10:00:01.000Z'),
    promptTokens: 120,
    completionTokens: 40,
    usageState: 'confirmed',
    cost: 0.00123,
    ...overrides,
  };
}

export function attemptRow(requestId: string, attemptNo: number): AttemptRow {
  return {
    requestId,
    attemptNo,
    kind: 'upstream',
    deployment: 'mid-a',
    responseId: `chatcmpl-${requestId}-${attemptNo}`,
    status: 200,
    errorCode: null,
    promptTokens: 120,
    completionTokens: 40,
    ttftMs: 250,
    durationMs: 1000,
    cost: 0.00123,
  };
}

async function count(db: Database, text: string, params: readonly unknown[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>(text, params);
  return rows[0]!.n;
}

const HOSTILE = [
  "'); DROP TABLE requests; --",
  'x"; DELETE FROM api_keys WHERE true; --',
  '$1 $2 $$ body $$',
  "\\'; SELECT pg_sleep(10); --",
  '{a,"b}",NULL}',
  'ℝ𝕖𝕢𝕦𝕖𝕤𝕥 \u202e evil \t\r\n',
];

/**
 * The cases every back end passes, run by `src/store/open-embedded.test.ts` (PGlite) and
 * `test/store/postgres-server.test.ts` (a PostgreSQL server). One database per suite, migrated
 * once; each case uses its own ids.
 */
export function describeDatabaseCases(open: OpenDatabase): void {
  let db: Database;
  let firstApplied: string[];

  beforeAll(async () => {
    db = await open();
    firstApplied = await migrate(db);
  }, 60_000);
  afterAll(async () => {
    await db.close();
  });

  it('applies the migrations once; migrating again applies nothing', async () => {
    expect(firstApplied).toEqual(['0001_keys-and-ledger']);
    expect(await migrate(db)).toEqual([]);
    expect(await count(db, 'SELECT count(*)::int AS n FROM pgmigrations', [])).toBe(1);
  });

  it('creates the keys and ledger tables with their indexes', async () => {
    const { rows } = await db.query<{ table_name: string; columns: string }>(
      `SELECT table_name, string_agg(column_name, ' ' ORDER BY ordinal_position) AS columns
       FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name = ANY($1) GROUP BY table_name ORDER BY table_name`,
      [['api_keys', 'requests', 'attempts']],
    );
    expect(rows).toEqual([
      {
        table_name: 'api_keys',
        columns:
          'id key_hash key_alias models tiers max_budget budget_duration budget_reset_at tpm_limit rpm_limit ' +
          'max_parallel_requests expires blocked metadata created_at updated_at previous_hash previous_valid_until',
      },
      {
        table_name: 'attempts',
        columns:
          'request_id attempt_no kind deployment response_id status error_code prompt_tokens completion_tokens ' +
          'ttft_ms duration_ms cost',
      },
      {
        table_name: 'requests',
        columns:
          'request_id key_alias key_hash endpoint model_asked complexity tier cause table_version status error_code ' +
          'started_at first_token_at finished_at prompt_tokens completion_tokens usage_state cost',
      },
    ]);
    const indexes = await db.query<{ indexname: string }>(
      `SELECT indexname FROM pg_indexes WHERE tablename = 'requests' ORDER BY indexname`,
      [],
    );
    expect(indexes.rows.map((row) => row.indexname)).toEqual([
      'requests_key_hash_started_at',
      'requests_pkey',
      'requests_started_at',
    ]);
  });

  it('stores hostile strings verbatim through parameters', async () => {
    for (const [index, text] of HOSTILE.entries()) {
      await db.query('INSERT INTO api_keys (key_hash, key_alias, models, metadata) VALUES ($1, $2, $3, $4)', [
        `hostile-${index}`,
        text,
        [text, 'b'],
        JSON.stringify({ note: text }),
      ]);
    }
    const { rows } = await db.query<{ key_alias: string; models: string[]; metadata: { note: string } }>(
      `SELECT key_alias, models, metadata FROM api_keys WHERE key_hash LIKE 'hostile-%' ORDER BY key_hash`,
      [],
    );
    expect(rows).toEqual(
      HOSTILE.map((text) => ({ key_alias: text, models: [text, 'b'], metadata: { note: text } })),
    );
    expect(await count(db, 'SELECT count(*)::int AS n FROM requests WHERE request_id = $1', ['none'])).toBe(
      0,
    );
  });

  it('refuses text that holds two statements', async () => {
    await expect(db.query('SELECT 1; SELECT 2', [])).rejects.toThrow(/multiple commands/);
  });

  it('inserting the same request and attempt rows twice leaves one row each', async () => {
    const requests = [requestRow('twice-1'), requestRow('twice-2', { usageState: 'estimated', cost: null })];
    const attempts = [attemptRow('twice-1', 1), attemptRow('twice-1', 2), attemptRow('twice-2', 1)];
    expect(await insertRequests(db, requests)).toBe(2);
    expect(await insertAttempts(db, attempts)).toBe(3);
    expect(await insertRequests(db, requests)).toBe(0);
    expect(await insertAttempts(db, attempts)).toBe(0);
    expect(
      await count(db, `SELECT count(*)::int AS n FROM requests WHERE request_id LIKE 'twice-%'`, []),
    ).toBe(2);
    expect(
      await count(db, `SELECT count(*)::int AS n FROM attempts WHERE request_id LIKE 'twice-%'`, []),
    ).toBe(3);
    const { rows } = await db.query('SELECT * FROM requests WHERE request_id = $1', ['twice-1']);
    expect(rows[0]).toMatchObject({
      key_alias: 'team-a',
      usage_state: 'confirmed',
      cost: '0.00123',
      started_at: new Date('2026-12-06T10:00:00.000Z'),
      prompt_tokens: 120,
    });
  });

  it('refuses a usage state outside confirmed, estimated and unknown', async () => {
    const row = requestRow('bad-usage', { usageState: 'guessed' as RequestRow['usageState'] });
    await expect(insertRequests(db, [row])).rejects.toThrow(/usage_state/);
  });

  it('rolls back a transaction whose callback throws', async () => {
    const failing = db.transaction(async (tx) => {
      await insertRequests(tx, [requestRow('rolled-back')]);
      throw new Error('changed my mind');
    });
    await expect(failing).rejects.toThrow('changed my mind');
    expect(
      await count(db, 'SELECT count(*)::int AS n FROM requests WHERE request_id = $1', ['rolled-back']),
    ).toBe(0);
    expect(await db.transaction((tx) => insertRequests(tx, [requestRow('committed')]))).toBe(1);
    expect(
      await count(db, 'SELECT count(*)::int AS n FROM requests WHERE request_id = $1', ['committed']),
    ).toBe(1);
  });

  it('throws when COMMIT finds the transaction aborted by a caught failure', async () => {
    const swallowing = db.transaction(async (tx) => {
      await insertRequests(tx, [requestRow('aborted')]);
      await tx.query('SELECT 1 / 0', []).catch(() => undefined);
    });
    await expect(swallowing).rejects.toBeInstanceOf(TransactionAbortedError);
    expect(
      await count(db, 'SELECT count(*)::int AS n FROM requests WHERE request_id = $1', ['aborted']),
    ).toBe(0);
  });

  it('refuses statements on a transaction after it ended', async () => {
    let leaked: Parameters<Parameters<Database['transaction']>[0]>[0] | undefined;
    await db.transaction((tx) => {
      leaked = tx;
      return Promise.resolve();
    });
    await expect(leaked!.query('SELECT 1', [])).rejects.toThrow(/transaction has ended/);
  });

  it('a statement from outside never lands inside an open transaction', async () => {
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const failing = db.transaction(async (tx) => {
      await insertRequests(tx, [requestRow('inside')]);
      entered();
      await tx.query('SELECT 1', []);
      throw new Error('roll back the inside row');
    });
    await inside;
    const outside = insertRequests(db, [requestRow('outside')]);
    await expect(failing).rejects.toThrow('roll back the inside row');
    expect(await outside).toBe(1);
    const { rows } = await db.query<{ request_id: string }>(
      'SELECT request_id FROM requests WHERE request_id = ANY($1) ORDER BY request_id',
      [['inside', 'outside']],
    );
    expect(rows).toEqual([{ request_id: 'outside' }]);
  });

  it('concurrent read-modify-write transactions lose no update', async () => {
    await db.query('CREATE TABLE IF NOT EXISTS test_counter (id int PRIMARY KEY, n int NOT NULL)', []);
    await db.query('INSERT INTO test_counter (id, n) VALUES (1, 0)', []);
    const increments = Array.from({ length: 20 }, () =>
      db.transaction(async (tx) => {
        const { rows } = await tx.query<{ n: number }>(
          'SELECT n FROM test_counter WHERE id = 1 FOR UPDATE',
          [],
        );
        await tx.query('SELECT 1', []);
        await tx.query('UPDATE test_counter SET n = $1 WHERE id = 1', [rows[0]!.n + 1]);
      }),
    );
    await Promise.all(increments);
    expect(await count(db, 'SELECT n FROM test_counter WHERE id = 1', [])).toBe(20);
  });

  it('inserts a batch of 2,000 requests and their attempts, in several statements', async () => {
    const ids = Array.from({ length: 2_000 }, (_, index) => `batch-${index}`);
    const started = new Date('2026-12-06T11:00:00.000Z').getTime();
    const requests = ids.map((id, index) => requestRow(id, { startedAt: new Date(started + index) }));
    expect(await insertRequests(db, requests)).toBe(2_000);
    expect(
      await insertAttempts(
        db,
        ids.map((id) => attemptRow(id, 1)),
      ),
    ).toBe(2_000);
    expect(await insertRequests(db, requests)).toBe(0);
    expect(
      await count(db, `SELECT count(*)::int AS n FROM requests WHERE request_id LIKE 'batch-%'`, []),
    ).toBe(2_000);
    const last = await db.query<{ started_at: Date }>(
      'SELECT started_at FROM requests WHERE request_id = $1',
      ['batch-1999'],
    );
    expect(last.rows[0]!.started_at).toEqual(new Date(started + 1_999));
  });

  it('keeps its rows when closed and opened again', async () => {
    await insertRequests(db, [requestRow('kept')]);
    await db.close();
    db = await open();
    expect(await migrate(db)).toEqual([]);
    expect(await count(db, 'SELECT count(*)::int AS n FROM requests WHERE request_id = $1', ['kept'])).toBe(
      1,
    );
  });
}
