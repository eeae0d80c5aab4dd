import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    reporters: ['default', './test/reporters/summary.ts'],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The suite waits more than it computes (processes, sockets, terminals, real-time audio): at 2 workers the
    // 2 cores were 57% busy. 4 workers overlap those waits. Measured on this 2-core machine: 154 s -> 78 s.
    maxWorkers: 4,
    // A worker runs file after file instead of a fresh fork for each of the 112 files: the forks' start-up was
    // about a third of the suite's CPU (178 s -> 122 s). Files share no state: each starts its own emulator and
    // temp dirs, and test/setup.ts guards child_process once per worker.
    isolate: false,
  },
});
