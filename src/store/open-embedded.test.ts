import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeDatabaseCases } from '../../test/store/database-cases.js';
import { openEmbedded } from './open-embedded.js';

const root = mkdtempSync(join(tmpdir(), 'autotier-pglite-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('embedded database (PGlite)', () => {
  const dir = join(root, 'data', 'pg');
  describeDatabaseCases(() => openEmbedded(dir));

  it('keeps its files under the directory it was given, created when missing', () => {
    expect(statSync(join(dir, 'PG_VERSION')).isFile()).toBe(true);
  });
});
