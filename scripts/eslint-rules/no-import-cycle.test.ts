import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterEach, describe, expect, it } from 'vitest';
import plugin from './no-import-cycle.js';

const folders: string[] = [];

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** Writes `files` into a fresh folder and returns the rule's messages for `linted`. */
async function lintFixture(files: Record<string, string>, linted: string): Promise<string[]> {
  const folder = mkdtempSync(join(tmpdir(), 'no-import-cycle-'));
  folders.push(folder);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  const eslint = new ESLint({
    cwd: folder,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { autotier: plugin },
        rules: { 'autotier/no-import-cycle': 'error' },
      },
    ],
  });
  const [result] = await eslint.lintFiles([join(folder, linted)]);
  return (result?.messages ?? []).map((message) => message.message);
}

describe('autotier/no-import-cycle', () => {
  it('reports two files that import only each other’s types', async () => {
    const messages = await lintFixture(
      {
        'a.ts': "import type { B } from './b.js';\nexport interface A { b: B }\n",
        'b.ts': "import type { A } from './a.js';\nexport interface B { a: A }\n",
      },
      'a.ts',
    );
    expect(messages).toEqual(['Import cycle (type imports included): a.ts -> b.ts -> a.ts']);
  });

  it('follows type re-exports and import() types, and names the shortest way back', async () => {
    const messages = await lintFixture(
      {
        'a.ts': "import { b } from './b.js';\nexport const a = b;\nexport type Shape = { size: number };\n",
        'b.ts': "export type { C } from './c.js';\nexport const b = 1;\n",
        'c.ts': "export type C = import('./a.js').Shape;\n",
      },
      'a.ts',
    );
    expect(messages).toEqual(['Import cycle (type imports included): a.ts -> b.ts -> c.ts -> a.ts']);
  });

  it('accepts imports that point one way, and packages', async () => {
    const messages = await lintFixture(
      {
        'a.ts':
          "import type { B } from './b.js';\nimport ts from 'typescript';\nexport type A = B | typeof ts;\n",
        'b.ts': "import type { C } from './c.js';\nexport type B = C;\n",
        'c.ts': 'export type C = number;\n',
      },
      'a.ts',
    );
    expect(messages).toEqual([]);
  });
});
