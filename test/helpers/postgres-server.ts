import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './spawn-autotier.js';

const run = promisify(execFile);
const POSTGRES_LIB = '/usr/lib/postgresql';

/** The bin folder of the newest PostgreSQL under /usr/lib/postgresql (Debian's layout), if any. */
export function findPostgresBin(): string | undefined {
  if (!existsSync(POSTGRES_LIB)) return undefined;
  const versions = readdirSync(POSTGRES_LIB)
    .filter((version) => existsSync(join(POSTGRES_LIB, version, 'bin/initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(POSTGRES_LIB, versions[0], 'bin');
}

export interface PostgresServer {
  /** A URL of a database on it, `postgres` unless named. */
  url(database?: string): string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** PostgreSQL refuses to run as root: as root, the server's commands run as the user `postgres`. */
async function runAsOwner(command: string, args: string[]): Promise<void> {
  const asRoot = process.getuid?.() === 0;
  await (asRoot
    ? run('runuser', ['-u', 'postgres', '--', command, ...args], { timeout: 60_000 })
    : run(command, args, { timeout: 60_000 }));
}

async function ownerIds(): Promise<{ uid: number; gid: number }> {
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  return { uid, gid };
}

/**
 * A throwaway PostgreSQL server: a fresh cluster in a temp dir (trust auth, user `postgres`), on
 * 127.0.0.1 at a free port, its socket in the same dir, fsync off. `stop()` stops it and removes
 * the dir.
 */
export async function startPostgresServer(bin: string): Promise<PostgresServer> {
  const root = mkdtempSync(join(tmpdir(), 'autotier-pg-'));
  if (process.getuid?.() === 0) {
    const { uid, gid } = await ownerIds();
    chownSync(root, uid, gid);
  }
  const data = join(root, 'data');
  const ctl = join(bin, 'pg_ctl');
  try {
    await runAsOwner(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync']);
    const port = await freePort();
    const serverOptions = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off`;
    await runAsOwner(ctl, ['-D', data, '-o', serverOptions, '-l', join(root, 'server.log'), '-w', 'start']);
    const url = (database = 'postgres'): string => `postgres://postgres@127.0.0.1:${port}/${database}`;
    return {
      url,
      createDatabase: async (name) => {
        const admin = new pg.Client({ connectionString: url() });
        await admin.connect();
        try {
          // A name from the test code; identifiers cannot be parameters.
          await admin.query(`CREATE DATABASE "${name}"`);
        } finally {
          await admin.end();
        }
        return url(name);
      },
      stop: async () => {
        await runAsOwner(ctl, ['-D', data, '-m', 'fast', '-w', 'stop']).catch(() => undefined);
        rmSync(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await runAsOwner(ctl, ['-D', data, '-m', 'immediate', 'stop']).catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}
