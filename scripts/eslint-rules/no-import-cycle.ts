import { statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { ESLint, Rule } from 'eslint';
import ts from 'typescript';

/**
 * An import cycle between the project's files, type-only imports included: import-x/no-cycle skips
 * every `import type` (they leave no trace at run time), yet two modules that name each other's types
 * are still one module in two files, and the layer order (LAYERS in eslint.config.js) cannot hold inside
 * a folder. Every relative specifier counts: imports and re-exports of values or types, `import()` and
 * `import('./x.js').T`. Files other than the linted one are read from disk with TypeScript's
 * pre-processor (no full parse) and resolved as tsc resolves them (NodeNext: `./x.js` means `./x.ts`).
 *
 * Loaded by eslint.config.js through Node's own type stripping, so only erasable TypeScript here.
 */

const RESOLUTION: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  allowJs: true,
};

/** The project files a file imports, by path; kept while the file's mtime is unchanged. */
const importsByFile = new Map<string, { mtimeMs: number; imports: readonly string[] }>();

/**
 * The project file a relative specifier names, or undefined (a package, a declaration file, or a path
 * that resolves to nothing).
 */
function toProjectFile(specifier: string, importer: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const resolved = ts.resolveModuleName(specifier, importer, RESOLUTION, ts.sys).resolvedModule;
  if (resolved === undefined || resolved.isExternalLibraryImport === true) return undefined;
  if (resolved.resolvedFileName.endsWith('.d.ts')) return undefined;
  return resolve(resolved.resolvedFileName);
}

function importsOf(file: string): readonly string[] {
  let mtimeMs: number;
  try {
    mtimeMs = statSync(file).mtimeMs;
  } catch {
    return [];
  }
  const cached = importsByFile.get(file);
  if (cached?.mtimeMs === mtimeMs) return cached.imports;
  const { importedFiles } = ts.preProcessFile(ts.sys.readFile(file) ?? '', true, true);
  const imports = new Set<string>();
  for (const { fileName } of importedFiles) {
    const imported = toProjectFile(fileName, file);
    if (imported !== undefined) imports.add(imported);
  }
  importsByFile.set(file, { mtimeMs, imports: [...imports] });
  return [...imports];
}

/**
 * The shortest chain of imports from `start` back to `target` (`start` first, `target` last), or
 * undefined when `start` does not lead back.
 */
function findWayBack(start: string, target: string): string[] | undefined {
  const cameFrom = new Map<string, string | undefined>([[start, undefined]]);
  const queue = [start];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const imported of importsOf(next)) {
      if (imported === target) {
        const chain = [target];
        for (let at: string | undefined = next; at !== undefined; at = cameFrom.get(at)) chain.unshift(at);
        return chain;
      }
      if (cameFrom.has(imported)) continue;
      cameFrom.set(imported, next);
      queue.push(imported);
    }
  }
  return undefined;
}

export const noImportCycle: Rule.RuleModule = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles between files, type-only imports included.' },
    schema: [],
    messages: { cycle: 'Import cycle (type imports included): {{chain}}' },
  },
  create(context) {
    const file = resolve(context.physicalFilename);
    /** An import, a re-export, `import()` or typescript-eslint's TSImportType: each has a `source`. */
    const checkSource = (node: Rule.Node): void => {
      const source = 'source' in node ? node.source : undefined;
      if (source?.type !== 'Literal' || typeof source.value !== 'string') return;
      const imported = toProjectFile(source.value, file);
      if (imported === undefined || imported === file) return;
      const chain = findWayBack(imported, file);
      if (chain === undefined) return;
      const names = [file, ...chain].map((path) => relative(context.cwd, path) || path);
      context.report({ node: source, messageId: 'cycle', data: { chain: names.join(' -> ') } });
    };
    return {
      ImportDeclaration: checkSource,
      ExportNamedDeclaration: checkSource,
      ExportAllDeclaration: checkSource,
      ImportExpression: checkSource,
      // `import('./x.js').Shape` in a type
      TSImportType: checkSource,
    };
  },
};

/** The plugin eslint.config.js registers as `autotier`. */
const plugin: ESLint.Plugin = { rules: { 'no-import-cycle': noImportCycle } };
export default plugin;
