import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { hashKey } from '../policy/api-keys.js';
import { RouterError } from '../shared/errors.js';
import { createOffThreadLoader } from './load-table-off-thread.js';

const tier = { group: ['a'] };
const valid = {
  deployments: [{ id: 'a', model: 'm', base_url: 'http://127.0.0.1:1/v1', context_window: 1000 }],
  tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
};

describe('loading a routing table on a worker thread', () => {
  let folder: string;
  const loader = createOffThreadLoader({ timeoutMs: 120_000 });
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'autotier-offthread-'));
  });
  afterAll(async () => {
    await loader.close();
    await rm(folder, { recursive: true, force: true });
  });

  it('returns the same frozen table as a load on the main thread', async () => {
    const path = join(folder, 'valid.yaml');
    await writeFile(path, stringify(valid));
    const loaded = await loader.load(path, 42);
    expect(loaded.table.deployments[0]?.id).toBe('a');
    expect(loaded.loadedAt).toBe(42);
    expect(loaded.files).toEqual([path]);
    expect(Object.isFrozen(loaded.table.tiers.SIMPLE)).toBe(true);
  });

  it('rejects with every bad key path', async () => {
    const path = join(folder, 'bad.yaml');
    await writeFile(path, stringify({ ...valid, tiers: { ...valid.tiers, SIMPLE: { group: ['ghost'] } } }));
    const error = await loader.load(path, 0).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(RouterError);
    expect((error as RouterError).code).toBe('CONFIG_INVALID');
    expect((error as RouterError).cause).toEqual([
      { path: 'tiers.SIMPLE.group.0', message: 'unknown deployment id "ghost"' },
    ]);
  });

  it('keeps the event loop turning while a large table is parsed', async () => {
    const path = join(folder, 'large.yaml');
    const keys = Array.from({ length: 4000 }, (_, index) => ({
      name: `key-${index}`,
      sha256: hashKey(`secret-${index}`),
      tiers: ['SIMPLE', 'MODERATE'],
      rpm: 100,
    }));
    await writeFile(path, stringify({ ...valid, api_keys: keys }));
    let turns = 0;
    let loading = true;
    const spin = (): void => {
      turns += 1;
      if (loading) setImmediate(spin);
    };
    setImmediate(spin);
    const loaded = await loader.load(path, 0).finally(() => (loading = false));
    expect(loaded.table.api_keys).toHaveLength(4000);
    // parsing ~750 KiB of YAML takes most of a second; on the main thread the loop would not turn at all
    expect(turns).toBeGreaterThan(20);
  });
});
