import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    reporters: ['default', './test/reporters/summary.ts'],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // Each file runs the CLI as processes; two cores, so keep parallelism modest.
    maxWorkers: 2,
    pool: 'forks',
  },
});
