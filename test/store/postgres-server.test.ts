import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecordingLogger, type Logger } from '../../src/shared/logger.js';
import { openPostgres } from '../../src/store/open-postgres.js';
import { findPostgresBin, startPostgresServer, type PostgresServer } from '../helpers/postgres-server.js';
import { describeDatabaseCases } from './database-cases.js';

const bin = findPostgresBin();
const title = bin
  ? `PostgreSQL server (${bin})`
  : 'PostgreSQL server: SKIPPED, no /usr/lib/postgresql/*/bin/initdb (install the Debian package postgresql)';

describe.skipIf(bin === undefined)(title, () => {
  let server: PostgresServer;
  const urls = new Map<string, string>();
  /** A database of its own per suite, created on first use. */
  const database = async (name: string): Promise<string> => {
    urls.set(name, urls.get(name) ?? (await server.createDatabase(name)));
    return urls.get(name)!;
  };

  beforeAll(async () => {
    server = await startPostgresServer(bin!);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  }, 60_000);

  describe('the shared cases', () => {
    describeDatabaseCases(async () =>
      openPostgres(await database('cases'), { logger: createRecordingLogger() }),
    );
  });

  it('names itself autotier and sets the statement timeout it was given', async () => {
    const db = openPostgres(await database('settings'), {
      logger: createRecordingLogger(),
      statementTimeoutMs: 250,
    });
    try {
      const { rows } = await db.query<{ name: string; timeout: string }>(
        `SELECT current_setting('application_name') AS name, current_setting('statement_timeout') AS timeout`,
      );
      expect(rows).toEqual([{ name: 'autotier', timeout: '250ms' }]);
      await expect(db.query('SELECT pg_sleep(5)')).rejects.toMatchObject({ code: '57014' });
    } finally {
      await db.close();
    }
  });

  it('logs, and does not crash, when the server ends an idle pooled connection', async () => {
    const recorded = createRecordingLogger();
    let logged!: () => void;
    const ended = new Promise<void>((resolve) => (logged = resolve));
    const logger = {
      ...recorded,
      error: (...line: Parameters<Logger['error']>) => (recorded.error(...line), logged()),
    };
    const db = openPostgres(await database('terminate'), { logger });
    const admin = openPostgres(server.url(), { logger: createRecordingLogger() });
    try {
      await db.query('SELECT 1');
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
        ['terminate'],
      );
      await ended;
      expect(recorded.lines.find((line) => line.level === 'error')).toMatchObject({
        message: 'postgres: connection failed',
        fields: { code: '57P01' },
      });
      expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await Promise.all([db.close(), admin.close()]);
    }
  });

  it('warns that pg takes one host and ignores target_session_attrs', () => {
    const logger = createRecordingLogger();
    const db = openPostgres(
      'postgres://user:secret@db-a:5432,db-b:5432/autotier?target_session_attrs=read-write',
      {
        logger,
      },
    );
    void db.close();
    const warnings = logger.lines.filter((line) => line.level === 'warn').map((line) => line.message);
    expect(warnings).toHaveLength(2);
    expect(warnings.join(' ')).not.toContain('secret');
  });
});
