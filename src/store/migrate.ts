import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClientBase } from 'pg';
import { silentLogger, type Logger } from '../shared/logger.js';
import type { Database } from './database.js';

/** `migrations/` at the project root: two levels above this file in src/store/ and in dist/store/. */
export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../migrations');

/** node-pg-migrate's default table name, so its CLI reads the same history. */
export const MIGRATIONS_TABLE = 'pgmigrations';

export interface MigrateOptions {
  /** @default MIGRATIONS_DIR */
  dir?: string;
  logger?: Logger;
}

/**
 * Applies the migrations not applied yet, in file-name order, in one transaction, with
 * node-pg-migrate's runner (https://salsita.github.io/node-pg-migrate/api). Returns the names it
 * applied (none when the schema is current). Instances starting together take turns on
 * node-pg-migrate's advisory lock (`advisoryLockMode: 'wait'`); PGlite has advisory locks too, so
 * both back ends take it. `statement_timeout` is off for the run: a wait for the lock or a long
 * migration is not a stuck query.
 */
export async function migrate(db: Database, options: MigrateOptions = {}): Promise<string[]> {
  const logger = options.logger ?? silentLogger;
  const { runner } = await import('node-pg-migrate');
  return db.withSession(async (session) => {
    await session.query('SET statement_timeout = 0');
    try {
      const applied = await runner({
        // The runner calls only `query(text, values?)` and reads `rows` of what it returns
        // (node-pg-migrate's dist/legacy/db.js); a Session is that much of a pg client.
        dbClient: session as unknown as ClientBase,
        dir: options.dir ?? MIGRATIONS_DIR,
        migrationsTable: MIGRATIONS_TABLE,
        direction: 'up',
        checkOrder: true,
        singleTransaction: true,
        advisoryLockMode: 'wait',
        logger: {
          info: (message) => logger.info(`migrations: ${message}`),
          warn: (message) => logger.warn(`migrations: ${message}`),
          error: (message) => logger.error(`migrations: ${message}`),
        },
      });
      return applied.map((migration) => migration.name);
    } finally {
      await session.query('RESET statement_timeout');
    }
  });
}
