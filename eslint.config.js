// @ts-check
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import autotier from './scripts/eslint-rules/no-import-cycle.ts';

/**
 * The folders of src/, highest first: a folder may import only the folders after it, so an upward
 * import or a cycle between folders fails the lint. The files directly in src/ (main.ts and the
 * other entry points) compose everything and are imported by none. Test files may import anything.
 */
const LAYERS = [
  'dashboard', // static browser page, imported by nothing
  'http',
  'endpoints', // one module per endpoint and ENDPOINTS, the one list of them; the edge mounts them
  'gateway',
  'routing', // the decision before the first upstream call: classification under the table's rules, the plan
  'classify',
  'policy',
  'balance',
  'observe',
  'upstream',
  'state',
  'store', // the database: PostgreSQL or embedded PGlite, migrations, the ledger's inserts, its writer and spool
  'config',
  'patterns', // the routing table's rule patterns: RE2 compilation, keyword regexes, repeat widths
  'runtime', // the process's own upkeep: memory released at start and after busy spells
  'tokenizers', // BPE tokenizers, their compiled tables and counting threads, on shared/ only
  'shared',
];

const unplaced = readdirSync(join(import.meta.dirname, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !LAYERS.includes(entry.name))
  .map((entry) => `src/${entry.name}`);
if (unplaced.length > 0) throw new Error(`eslint.config.js: place ${unplaced.join(', ')} in LAYERS`);

/** The layer order as import-x/no-restricted-paths zones: each folder, and the folders above it. */
const layerZones = LAYERS.map((folder, index) => ({
  target: `./src/${folder}`,
  from: [
    ...LAYERS.slice(0, index).map((above) => `./src/${above}`),
    './sim',
    './test',
    './eval',
    './bench',
    './scripts',
  ],
  message: `Layer order (LAYERS in eslint.config.js): src/${folder} may import ${
    index === LAYERS.length - 1 ? 'no other folder' : `only ${LAYERS.slice(index + 1).join(', ')}`
  } (and never sim/, test/, eval/, bench/ or scripts/).`,
}));

/** Folders of the core that must never reach for the express layer, Redis or winston. */
const coreFolders = LAYERS.slice(LAYERS.indexOf('http') + 1);

/**
 * Offline is not online (STYLE.md 17): train/ may import src/, never the other way, so `dist` (built
 * from src/) holds no training code.
 */
const noTrainingImports = {
  group: ['**/train/*', '**/train/**'],
  message: 'src/ serves; offline training lives in train/, which imports src/ and never the other way.',
};

export default tseslint.config(
  {
    ignores: ['dist', '.bench-dist', 'node_modules', 'coverage', 'artifacts', '.scratch', 'bench/results'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX, autotier },
    settings: {
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      // `./x.js` in the TypeScript sources means `./x.ts`: without the alias no relative import
      // resolves, and no-cycle and no-restricted-paths see nothing.
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.js', '.mjs', '.json'],
          extensionAlias: { '.js': ['.ts', '.js'] },
        }),
      ],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'max-params': ['error', 3],
      // Not import-x/no-cycle: it skips `import type`, and a cycle of types is still a cycle.
      'autotier/no-import-cycle': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-imports': ['error', { patterns: [noTrainingImports] }],
    },
  },
  ...coreFolders.map((folder) => ({
    files: [`src/${folder}/**/*.ts`],
    ignores: [
      'src/**/*.test.ts',
      'src/state/redis-*.ts',
      'src/observe/winston-*.ts',
      'src/observe/otel-*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['express', 'ioredis', 'winston'],
              message: 'Core folders never import express, ioredis or winston; wire them in main.ts.',
            },
            {
              group: ['@opentelemetry/*'],
              message:
                'The core traces through the Span and Tracer of shared/tracing.ts; the OpenTelemetry SDK stays in observe/otel-*.ts, wired in main.ts.',
            },
            noTrainingImports,
          ],
        },
      ],
    },
  })),
  {
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            ...layerZones,
            {
              target: './src/*/**',
              from: './src/*.ts',
              message: 'The files directly in src/ compose the service; no folder imports them.',
            },
            {
              target: './src/!(demo).ts',
              from: './sim',
              message:
                'The simulator does not ship: only src/demo.ts (run by tsx, left out of the build) starts it.',
            },
          ],
        },
      ],
    },
  },
  {
    // The simulated backend (tests, demo, bench): a separate server outside src/, so `dist` holds none of it.
    files: ['sim/**/*.ts'],
    rules: {
      'no-console': 'error',
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './sim',
              from: './src',
              except: ['./shared'],
              message: 'The simulator is a separate server: of src/ it imports shared/ only.',
            },
            {
              target: './sim',
              from: ['./test', './eval', './bench', './scripts', './train'],
              message:
                'The simulator never imports test/, eval/, bench/, scripts/ or train/; they import it.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // The dashboard's browser script, type-checked against lib DOM by src/dashboard/tsconfig.json (its
    // nearest tsconfig); no-undef is off because that check already knows every browser global.
    files: ['src/dashboard/public/**/*.js'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { 'no-undef': 'off', 'no-console': 'error' },
  },
  {
    files: [
      'test/**/*.ts',
      'src/**/*.test.ts',
      'sim/**/*.test.ts',
      'train/**/*.test.ts',
      'bench/**/*.ts',
      'eval/**/*.test.ts',
    ],
    rules: { 'max-params': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
