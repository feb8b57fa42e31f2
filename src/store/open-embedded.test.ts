import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { describeDatabaseCases } from '../../test/store/database-cases.js';
import { openEmbedded } from './open-embedded.js';

const root = mkdtempSync(join(tmpdir(), 'autotier-pglite-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A process's resident set, in kB, from /proc/<pid>/status. */
function residentKb(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line![1]);
}

describe('embedded database (PGlite)', () => {
  const dir = join(root, 'data', 'pg');
  describeDatabaseCases(() => openEmbedded(dir));

  it('keeps its files under the directory it was given, created when missing', () => {
    expect(statSync(join(dir, 'PG_VERSION')).isFile()).toBe(true);
  });
});

describe('the PGlite child process', () => {
  /** One directory for the cases that close cleanly: a new one costs an initdb (seconds). */
  const shared = join(root, 'lifecycle');

  it('runs apart from this process and exits when the database is closed', async () => {
    const db = await openEmbedded(shared);
    expect(db.pid).not.toBe(process.pid);
    expect(isAlive(db.pid)).toBe(true);
    await db.close();
    expect(isAlive(db.pid)).toBe(false);
    await expect(db.query('SELECT 1')).rejects.toThrow('the embedded database is closed');
    await db.close();
  });

  it('lets a process that never closed it end by itself', async () => {
    const script = fileURLToPath(new URL('../../test/store/embedded-left-open.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script, shared], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(output).toMatch(/^closed \d+\nleft open \d+\n$/);
  });

  it('hands PostgreSQL error fields back with the error', async () => {
    const db = await openEmbedded(shared);
    try {
      await db.query('CREATE TABLE IF NOT EXISTS unique_names (name text PRIMARY KEY)');
      await db.query('INSERT INTO unique_names VALUES ($1)', ['a']);
      await expect(db.query('INSERT INTO unique_names VALUES ($1)', ['a'])).rejects.toMatchObject({
        message: expect.stringMatching(/duplicate key/) as unknown,
        code: '23505',
        constraint: 'unique_names_pkey',
        detail: 'Key (name)=(a) already exists.',
      });
      await expect(db.query('SELECT 1 / 0')).rejects.toMatchObject({ code: '22012' });
      await expect(db.query('SELECT $1::text', [Symbol('not cloneable')])).rejects.toThrow(
        /could not send to the embedded database's process .*Symbol/,
      );
      expect((await db.query('SELECT $1::int AS n', [7])).rows).toEqual([{ n: 7 }]);
    } finally {
      await db.close();
    }
  });

  it('rejects calls in flight and later ones, without hanging, once the child is killed', async () => {
    const db = await openEmbedded(join(root, 'killed'));
    await db.query('SELECT 1');
    const inFlight = db.query('SELECT pg_sleep(30)');
    process.kill(db.pid, 'SIGKILL');
    const exited = new RegExp(`process \\(pid ${db.pid}\\) exited on SIGKILL; it is not restarted`);
    await expect(inFlight).rejects.toThrow(exited);
    await expect(db.query('SELECT 1')).rejects.toThrow(exited);
    await expect(db.transaction((tx) => tx.query('SELECT 1'))).rejects.toThrow(exited);
    await expect(db.withSession((session) => session.query('SELECT 1'))).rejects.toThrow(exited);
    await db.close();
  });

  it.skipIf(!existsSync('/proc/self/status'))(
    'grows the child, not this process, by what PGlite takes',
    async () => {
      const before = residentKb(process.pid);
      const db = await openEmbedded(shared);
      try {
        await db.query('CREATE TABLE IF NOT EXISTS rows_kept (id int PRIMARY KEY, body text NOT NULL)');
        for (let id = 0; id < 200; id += 1) {
          await db.query('INSERT INTO rows_kept VALUES ($1, $2)', [id, `row ${id}`.repeat(20)]);
        }
        const child = residentKb(db.pid);
        const grown = residentKb(process.pid) - before;
        // PGlite's WebAssembly heap alone is well over 50 MB; this process only holds the channel.
        expect(child).toBeGreaterThan(50_000);
        expect(grown).toBeLessThan(child / 2);
      } finally {
        await db.close();
      }
    },
  );
});
