import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startAutotier, type RunningAutotier } from '../../src/main.js';
import { hashKey } from '../../src/policy/api-keys.js';
import { createRecordingLogger } from '../../src/shared/logger.js';
import { simpleTable } from '../helpers/start-stack.js';

/**
 * A keyless table binds loopback only unless the operator says --open (or AUTOTIER_OPEN=1); a keyless
 * start on an explicit non-loopback host without it is refused with a message saying what to do. The
 * real start function listens on port 0; reachability is checked from this machine's own non-loopback
 * address (no traffic leaves the host).
 */
const external = Object.values(networkInterfaces())
  .flat()
  .find((address) => address !== undefined && address.family === 'IPv4' && !address.internal)?.address;

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('start-up: where a keyless table listens', () => {
  let folder: string;
  let keyless: string;
  let keyed: string;
  const running: RunningAutotier[] = [];
  const start = async (argv: string[], env: Record<string, string> = {}) => {
    const logger = createRecordingLogger();
    const service = await startAutotier({ argv: ['--port', '0', ...argv], env, logger });
    running.push(service);
    return { service, logger, port: Number(new URL(service.url).port) };
  };
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'autotier-start-up-'));
    const table = simpleTable({ urls: { a: 'http://127.0.0.1:9/v1' }, group: ['a'] });
    keyless = join(folder, 'keyless.yaml');
    writeFileSync(keyless, stringify(table));
    keyed = join(folder, 'keyed.yaml');
    writeFileSync(keyed, stringify({ ...table, api_keys: [{ name: 'k', sha256: hashKey('sk-start') }] }));
  });
  afterAll(async () => {
    for (const service of running) await service.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('listens on 127.0.0.1 only when the table has no keys and nothing else is said', async () => {
    const { service, logger, port } = await start(['--table', keyless]);
    expect(new URL(service.url).hostname).toBe('127.0.0.1');
    expect(await accepts('127.0.0.1', port)).toBe(true);
    if (external !== undefined) expect(await accepts(external, port)).toBe(false);
    expect(JSON.stringify(logger.lines)).toContain('loopback only');
  }, 30_000);

  it('accepts an explicit loopback host for a keyless table', async () => {
    for (const host of ['localhost', '::1']) {
      const { port } = await start(['--table', keyless, '--host', host]);
      expect(await accepts(host === 'localhost' ? '127.0.0.1' : host, port), host).toBe(true);
      if (external !== undefined) expect(await accepts(external, port), host).toBe(false);
    }
  }, 60_000);

  it('refuses to start keyless on a non-loopback host without --open, saying how to fix it', async () => {
    const hosts = ['0.0.0.0', '::', '::ffff:0.0.0.0', ...(external === undefined ? [] : [external])];
    for (const host of hosts) {
      await expect(start(['--table', keyless, '--host', host])).rejects.toThrow(
        /no API keys.*loopback only.*api_keys.*--open \(AUTOTIER_OPEN=1\)/s,
      );
      await expect(start(['--table', keyless], { AUTOTIER_HOST: host })).rejects.toThrow(/--open/);
    }
    await expect(
      start(['--table', keyless], { AUTOTIER_HOST: '0.0.0.0', AUTOTIER_OPEN: '0' }),
    ).rejects.toThrow(/--open/);
  }, 60_000);

  it('serves every host with --open or AUTOTIER_OPEN=1, on the host asked for', async () => {
    const open = await start(['--table', keyless, '--open']);
    expect(new URL(open.service.url).hostname).toBe('0.0.0.0');
    if (external !== undefined) expect(await accepts(external, open.port)).toBe(true);
    expect(JSON.stringify(open.logger.lines)).toContain('--open');
    if (external === undefined) return;
    const asked = await start(['--table', keyless, '--host', external], { AUTOTIER_OPEN: '1' });
    expect(new URL(asked.service.url).hostname).toBe(external);
    expect(await accepts(external, asked.port)).toBe(true);
    expect(await accepts('127.0.0.1', asked.port)).toBe(false);
  }, 60_000);

  it('keeps the configured host, 0.0.0.0 by default, when the table has keys', async () => {
    const { service, port } = await start(['--table', keyed]);
    expect(new URL(service.url).hostname).toBe('0.0.0.0');
    if (external !== undefined) {
      expect(await accepts(external, port)).toBe(true);
      const response = await fetch(`http://${external}:${port}/v1/models`);
      expect(response.status).toBe(401);
    }
  }, 30_000);

  it('exits 1 with the reason when the process is started keyless on 0.0.0.0, with one worker or several', async () => {
    for (const workers of ['1', '2']) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', '--table', keyless], {
        env: { ...process.env, AUTOTIER_HOST: '0.0.0.0', AUTOTIER_PORT: '0', AUTOTIER_WORKERS: workers },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (data: Buffer) => (output += data.toString()));
      child.stderr.on('data', (data: Buffer) => (output += data.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code, output).toBe(1);
      expect(output).toContain('autotier failed to start');
      expect(output).toContain('AUTOTIER_OPEN=1');
    }
  }, 120_000);
});
