import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { hashKey } from '../../src/policy/api-keys.js';
import { createSimulatedFleet, type SimFleet } from '../../sim/index.js';
import { spawnAutotier, type SpawnedAutotier } from '../helpers/spawn-autotier.js';
import { HELLO, postChat, simpleTable } from '../helpers/start-stack.js';

/** Editors and config management replace a file; a rename is what they do last. */
async function replaceFile(path: string, text: string): Promise<void> {
  await writeFile(`${path}.tmp`, text);
  await rename(`${path}.tmp`, path);
}

const keysYaml = (names: string[]): string =>
  stringify(names.map((name) => ({ name, sha256: hashKey(`sk-${name}`), admin: name === 'alice' })));

const chatAs = async (url: string, name: string): Promise<number> => {
  const response = await postChat(
    url,
    { model: 'tier:SIMPLE', messages: HELLO },
    { authorization: `Bearer sk-${name}` },
  );
  await response.arrayBuffer();
  return response.status;
};

describe('the keys file of a running service', () => {
  let folder: string;
  let fleet: SimFleet;
  let autotier: SpawnedAutotier;
  let keysPath: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'autotier-keys-'));
    fleet = await createSimulatedFleet({ backends: [{ id: 'a', models: ['sim-model'] }] });
    const table = join(folder, 'table.yaml');
    keysPath = join(folder, 'keys.yaml');
    await writeFile(keysPath, keysYaml(['alice', 'bob']));
    const urls = { a: fleet.byId('a').baseUrl };
    await writeFile(
      table,
      stringify({
        ...simpleTable({ urls, group: ['a'] }),
        classifier: { mode: 'local' },
        api_keys_file: 'keys.yaml',
      }),
    );
    autotier = await spawnAutotier({ table, env: { AUTOTIER_LOG_LEVEL: 'info' } });
  }, 120_000);
  afterAll(async () => {
    await autotier.stop();
    await fleet.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('revokes a removed key when the file changes, and logs key names only', async () => {
    expect(await chatAs(autotier.url, 'bob')).toBe(200);
    await replaceFile(keysPath, keysYaml(['alice']));
    await expect.poll(() => chatAs(autotier.url, 'bob'), { timeout: 20_000, interval: 50 }).toBe(401);
    expect(await chatAs(autotier.url, 'alice')).toBe(200);
    expect(autotier.output()).toContain('"keys_removed":["bob"]');
    expect(autotier.output()).not.toContain(hashKey('sk-bob'));
  });

  it('takes a changed keys file on SIGHUP', async () => {
    await replaceFile(keysPath, keysYaml(['alice', 'carol']));
    autotier.process.kill('SIGHUP');
    await expect.poll(() => chatAs(autotier.url, 'carol'), { timeout: 20_000, interval: 50 }).toBe(200);
  });

  it('refuses an emptied keys file instead of opening the service, and shows why', async () => {
    await replaceFile(keysPath, '[]\n');
    autotier.process.kill('SIGHUP');
    const admin = { authorization: 'Bearer sk-alice' };
    const lastRejection = async (): Promise<unknown> => {
      const state = (await (await fetch(`${autotier.url}/autotier/state`, { headers: admin })).json()) as {
        routing_table: { last_rejected_reload: unknown };
      };
      return state.routing_table.last_rejected_reload;
    };
    await expect.poll(lastRejection, { timeout: 20_000, interval: 50 }).toMatchObject({
      problems: [{ path: 'api_keys' }],
    });
    expect(await chatAs(autotier.url, 'alice')).toBe(200);
    const anonymous = await postChat(autotier.url, { model: 'tier:SIMPLE', messages: HELLO });
    expect(anonymous.status).toBe(401);
    const metrics = await (await fetch(`${autotier.url}/metrics`, { headers: admin })).text();
    expect(metrics).toMatch(/autotier_table_reloads_total\{outcome="rejected"\} [1-9]/);
  });
});
