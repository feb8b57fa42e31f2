import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'src/**/*.test.ts',
      'sim/**/*.test.ts',
      'train/**/*.test.ts',
      'test/**/*.test.ts',
      'eval/**/*.test.ts',
      'bench/**/*.test.ts',
      'scripts/**/*.test.ts',
    ],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
  },
});
