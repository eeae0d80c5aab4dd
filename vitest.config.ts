import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that wait longest (real-time audio, terminals, timeouts, npm pack, tsc). vitest orders files by the durations
 * of its last run, and without that cache (a fresh clone: CI) by size, which would start some of these last, where
 * they alone would make the tail of the run. They start first; the rest keep vitest's order.
 */
const LONGEST = [
  'test/commands/realtime/talk-turns.test.ts',
  'test/commands/realtime/talk.test.ts',
  'test/fault-matrix.test.ts',
  'test/repo/pack-install.test.ts',
  'test/repo/typecheck.test.ts',
  'test/term/zero-columns.test.ts',
  'test/commands/realtime/talk-ptt.test.ts',
  'test/term/color.test.ts',
  'test/core/atomic-file-commands.test.ts',
  'test/commands/chat/markdown.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONGEST.indexOf(relative(f.project.config.root, f.moduleId));
      return i < 0 ? LONGEST.length : i;
    };
    return sorted
      .map((f, i) => ({ f, i }))
      .sort((a, b) => rank(a.f) - rank(b.f) || a.i - b.i)
      .map(({ f }) => f);
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    reporters: ['default', './test/reporters/summary.ts'],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The suite waits more than it computes (processes, sockets, terminals, real-time audio): at 2 workers the
    // 2 cores were 57% busy. More workers overlap those waits. Measured on this 2-core machine (vitest's Duration,
    // no duration cache): 2 workers 154 s; 4 workers 76-78 s; 5 workers 71-72 s; 6 workers 70 s (not worth the
    // extra contention on the real-time audio tests).
    maxWorkers: 5,
    // A worker runs file after file instead of a fresh fork for each of the 112 files: the forks' start-up was
    // about a third of the suite's CPU (178 s -> 122 s). Files share no state: each starts its own emulator and
    // temp dirs, and test/setup.ts guards child_process once per worker.
    isolate: false,
    sequence: { sequencer: LongestFirst },
  },
});
