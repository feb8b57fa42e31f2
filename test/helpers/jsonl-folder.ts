import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

export interface JsonlFolder {
  /** Path of `name` inside the folder. */
  path: (name: string) => string;
  /** Writes one JSON value per line (and a final newline) to `name`; returns its path. */
  writeLines: (name: string, values: readonly unknown[]) => string;
}

/** A temporary folder for a test file's JSONL inputs, removed after its tests. */
export function createJsonlFolder(prefix: string): JsonlFolder {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const path = (name: string): string => join(folder, name);
  return {
    path,
    writeLines: (name, values) => {
      const file = path(name);
      writeFileSync(file, `${values.map((value) => JSON.stringify(value)).join('\n')}\n`);
      return file;
    },
  };
}
