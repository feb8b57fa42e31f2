import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);

async function validate(...files: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', ['--import', 'tsx', 'src/cli.ts', 'validate', ...files]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

describe('autotier validate', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'autotier-validate-'));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('accepts the shipped tables', async () => {
    const result = await validate('routing-tables/default.yaml', 'routing-tables/example-fleet.yaml');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('routing-tables/default.yaml: valid');
  });

  it('prints every bad key path and exits 1', async () => {
    const path = join(folder, 'bad.yaml');
    await writeFile(
      path,
      'deployments:\n  - id: a\n    model: m\n    base_url: not-a-url\n    context_window: -5\ntiers:\n  SIMPLE: { group: [a] }\n',
    );
    const result = await validate(path);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(path);
    expect(result.stderr).toContain('deployments.0.base_url');
    expect(result.stderr).toContain('deployments.0.context_window');
    expect(result.stderr).toContain('tiers.MODERATE');
  });
});
