// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';

/** Folders of the core that must never reach for the express layer, Redis or winston. */
const coreFolders = [
  'classify',
  'policy',
  'balance',
  'upstream',
  'state',
  'shared',
  'config',
  'observe',
  'gateway',
];

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
    ignores: [
      'dist',
      '.bench-dist',
      'node_modules',
      'coverage',
      'artifacts',
      '.scratch',
      'bench/results',
      'src/dashboard/public',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'max-params': ['error', 3],
      'import-x/no-cycle': 'error',
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
    ignores: ['src/**/*.test.ts', 'src/state/redis-*.ts', 'src/observe/winston-*.ts'],
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
              group: ['**/http/**', '../http/*'],
              message: 'Dependencies point one way: the core never imports the http adapter.',
            },
            noTrainingImports,
          ],
        },
      ],
    },
  })),
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: ['test/**/*.ts', 'src/**/*.test.ts', 'train/**/*.test.ts', 'bench/**/*.ts', 'eval/**/*.test.ts'],
    rules: { 'max-params': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
