import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { hashKey } from '../policy/api-keys.js';
import { parseTableInput, toTableRejection } from '../../test/helpers/table-input.js';
import {
  KEYS_FILE_LIMIT_BYTES,
  loadRoutingTableFile,
  parseRoutingTable,
  TABLE_FILE_LIMIT_BYTES,
} from './load-routing-table.js';

const tier = { group: ['a'] };
const valid = {
  deployments: [
    { id: 'a', model: 'm1', base_url: 'http://127.0.0.1:1/v1', context_window: 1000 },
    { id: 'b', model: 'm2', base_url: 'http://127.0.0.1:2/v1', context_window: 1000, quantization: 'fp8' },
  ],
  tiers: { SIMPLE: tier, MODERATE: tier, COMPLEX: tier, EXPERT: tier },
};

const parse = parseTableInput;
const problems = toTableRejection;

describe('routing table validation', () => {
  it('fills defaults and freezes the result', () => {
    const loaded = parse(valid);
    expect(loaded.table.tiers.SIMPLE.timeouts).toEqual({
      connect_ms: 2000,
      ttft_ms: 15_000,
      idle_ms: 10_000,
      total_ms: 120_000,
    });
    expect(loaded.table.balancer.cooldown_ms).toBe(5000);
    expect(Object.isFrozen(loaded.table.tiers.SIMPLE.timeouts)).toBe(true);
  });

  it("fills each tier's retry_in_place defaults, keeps given fields and rejects unknown ones", () => {
    expect(parse(valid).table.tiers.SIMPLE.retry_in_place).toEqual({
      transient_retries: 1,
      jitter_ms: 250,
      retry_after_cap_ms: 5000,
    });
    const custom = { group: ['a'], retry_in_place: { transient_retries: 0, retry_after_cap_ms: 2000 } };
    const table = parse({ ...valid, tiers: { ...valid.tiers, SIMPLE: custom } }).table;
    expect(table.tiers.SIMPLE.retry_in_place).toEqual({
      transient_retries: 0,
      jitter_ms: 250,
      retry_after_cap_ms: 2000,
    });
    const unknown = { group: ['a'], retry_in_place: { retries: 2 } };
    expect(problems({ ...valid, tiers: { ...valid.tiers, SIMPLE: unknown } })).toContain(
      'tiers.SIMPLE.retry_in_place',
    );
  });

  it('names the file and the key path of every error', () => {
    const message = problems({
      ...valid,
      tiers: { ...valid.tiers, SIMPLE: { group: ['nope'], timeouts: { ttft_ms: -1 } } },
      deployments: [{ ...valid.deployments[0], colour: 'red' }],
    });
    expect(message).toContain('test.yaml');
    expect(message).toContain('tiers.SIMPLE.timeouts.ttft_ms');
    expect(message).toContain('deployments.0');
    expect(message).toContain('colour');
    expect(message).toContain('tiers.SIMPLE.group.0: unknown deployment id "nope"');
  });

  it('rejects a missing tier', () => {
    expect(problems({ ...valid, tiers: { SIMPLE: tier } })).toContain('tiers.EXPERT');
  });

  it('rejects duplicate deployment ids', () => {
    expect(problems({ ...valid, deployments: [valid.deployments[0], valid.deployments[0]] })).toContain(
      'deployments.1.id: duplicate deployment id "a"',
    );
  });

  it('requires a classifier deployment in cascade mode', () => {
    expect(problems({ ...valid, classifier: { mode: 'cascade' } })).toContain('classifier.deployment');
  });

  it('defaults the cascade to the calibrated combination and learning off, and checks their fields', () => {
    const { classifier } = parse(valid).table;
    expect(classifier).toMatchObject({
      disagreement: 'calibrated',
      calibrated: { llm_accuracy: 0.87 },
      learn: { enabled: false, to: 'file', max_records: 100_000 },
    });
    expect(problems({ ...valid, classifier: { learn: { enabled: true } } })).toContain(
      'classifier.learn.path',
    );
    expect(problems({ ...valid, classifier: { learn: { enabled: true, to: 'disk', path: 'x' } } })).toContain(
      'classifier.learn.to',
    );
    const badRow = [
      [0.5, 0.4, 0, 0],
      [0, 1, 0, 0],
      [0, 0, 1, 0],
      [0, 0, 0, 1],
    ];
    expect(problems({ ...valid, classifier: { calibrated: { confusion: badRow } } })).toContain(
      'classifier.calibrated.confusion',
    );
    expect(problems({ ...valid, classifier: { calibrated: { temperature: 2 } } })).toContain('temperature');
  });

  it('reports YAML syntax errors with their line', () => {
    expect(() => parseRoutingTable({ text: 'tiers: [\n  a: b', source: 'bad.yaml', now: 0 })).toThrow(
      /bad\.yaml[\s\S]*line/,
    );
  });

  it('warns when one group mixes served models or quantizations', () => {
    const loaded = parse({ ...valid, tiers: { ...valid.tiers, COMPLEX: { group: ['a', 'b'] } } });
    expect(loaded.warnings).toEqual([
      'tiers.COMPLEX.group mixes served models: m1, m2',
      'tiers.COMPLEX.group mixes quantizations: unspecified, fp8',
    ]);
  });

  for (const file of ['routing-tables/default.yaml', 'routing-tables/example-fleet.yaml']) {
    it(`accepts the shipped table ${file}`, async () => {
      const loaded = parseRoutingTable({ text: await readFile(file, 'utf8'), source: file, now: 0 });
      expect(loaded.warnings).toEqual([]);
    });
  }

  it('refuses credentials in a base_url and points to api_key_env', () => {
    const message = problems({
      ...valid,
      deployments: [{ ...valid.deployments[0], base_url: 'http://user:secret@127.0.0.1:1/v1' }],
    });
    expect(message).toContain('deployments.0.base_url');
    expect(message).toContain('api_key_env');
    expect(message).not.toContain('secret@');
  });

  it('refuses two keys with the same name or the same secret, naming the path', () => {
    const key = (name: string, secret: string) => ({ name, sha256: hashKey(secret) });
    expect(problems({ ...valid, api_keys: [key('a', 's1'), key('b', 's1')] })).toContain('api_keys.1.sha256');
    expect(problems({ ...valid, api_keys: [key('a', 's1'), key('a', 's2')] })).toContain(
      'api_keys.1.name: duplicate key name "a"',
    );
  });

  it('lets a key list VISION among its tiers', () => {
    const loaded = parse({
      ...valid,
      api_keys: [{ name: 'v', sha256: hashKey('s'), tiers: ['SIMPLE', 'VISION'] }],
    });
    expect(loaded.table.api_keys[0]?.tiers).toEqual(['SIMPLE', 'VISION']);
  });

  it('refuses open_mode together with keys', () => {
    expect(
      problems({ ...valid, open_mode: true, api_keys: [{ name: 'a', sha256: hashKey('s') }] }),
    ).toContain('open_mode');
  });
});

describe('routing table files', () => {
  const withFolder = async (run: (folder: string) => Promise<void>): Promise<void> => {
    const folder = await mkdtemp(join(tmpdir(), 'autotier-table-'));
    try {
      await run(folder);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  };
  const keyLine = (name: string, secret: string): string =>
    `- { name: ${name}, sha256: ${hashKey(secret)} }\n`;

  it('adds the keys file, lists both files, and versions them together', async () => {
    await withFolder(async (folder) => {
      const table = join(folder, 'table.yaml');
      await writeFile(table, stringify({ ...valid, api_keys_file: 'keys.yaml' }));
      await writeFile(join(folder, 'keys.yaml'), keyLine('a', 's1'));
      const first = await loadRoutingTableFile(table, 0);
      expect(first.table.api_keys.map((key) => key.name)).toEqual(['a']);
      expect(first.files).toEqual([table, join(folder, 'keys.yaml')]);
      await writeFile(join(folder, 'keys.yaml'), keyLine('a', 's1') + keyLine('b', 's2'));
      const second = await loadRoutingTableFile(table, 0);
      expect(second.version).not.toBe(first.version);
    });
  });

  it('refuses a secret used by a table key and a keys-file key, naming the file entry', async () => {
    await withFolder(async (folder) => {
      const table = join(folder, 'table.yaml');
      await writeFile(
        table,
        stringify({ ...valid, api_keys_file: 'keys.yaml', api_keys: [{ name: 'a', sha256: hashKey('s1') }] }),
      );
      await writeFile(join(folder, 'keys.yaml'), keyLine('b', 's1'));
      await expect(loadRoutingTableFile(table, 0)).rejects.toThrow(/keys\.yaml\[0\]\.sha256/);
    });
  });

  it('refuses a table or keys file over its size limit before parsing it', async () => {
    await withFolder(async (folder) => {
      const table = join(folder, 'table.yaml');
      await writeFile(table, `# ${'x'.repeat(TABLE_FILE_LIMIT_BYTES)}\n${stringify(valid)}`);
      await expect(loadRoutingTableFile(table, 0)).rejects.toThrow(/the limit is 1048576 bytes/);
      await writeFile(table, stringify({ ...valid, api_keys_file: 'keys.yaml' }));
      await writeFile(join(folder, 'keys.yaml'), `# ${'x'.repeat(KEYS_FILE_LIMIT_BYTES)}\n`);
      await expect(loadRoutingTableFile(table, 0)).rejects.toThrow(/api_keys_file: .*the limit is/);
    });
  });
});
