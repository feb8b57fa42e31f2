import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

interface PackageJson {
  types?: string;
  exports?: Record<string, { types?: string; import?: string }>;
}

describe("the package's public entry", () => {
  it('exports createAutotier and nothing else at run time', async () => {
    const entry = await import('../../src/index.js');
    expect(Object.keys(entry)).toEqual(['createAutotier']);
  });

  it('is what package.json exports: the compiled src/index.ts and its types', () => {
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as PackageJson;
    expect(manifest.exports).toEqual({ '.': { types: './dist/index.d.ts', import: './dist/index.js' } });
    expect(manifest.types).toBe('./dist/index.d.ts');
    // tsconfig files hold comments: read as tsc reads them
    const build = ts.parseConfigFileTextToJson(
      'tsconfig.build.json',
      readFileSync('tsconfig.build.json', 'utf8'),
    ).config as { compilerOptions: { rootDir: string; outDir: string; declaration: boolean } };
    expect(build.compilerOptions).toMatchObject({ rootDir: 'src', outDir: 'dist', declaration: true });
  });
});
