import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that take longest (real-time audio, terminals, timeouts, npm pack, a cold tsc), longest first. vitest orders
 * files by the durations of its last run, and without that cache (a fresh clone: CI) by size, which would start some
 * of these last, where they alone would make the tail of the run. They start first; the rest keep vitest's order.
 * Last in the list, the three files that read the source graph (test/helpers/source-graph.ts: TypeScript's parser
 * over every file, ~1 s each) when they are imported: vitest's durations leave that out, so it ordered them last.
 */
const LONGEST = [
  'test/commands/realtime/talk-echo-long.test.ts',
  'test/commands/realtime/talk-turns.test.ts',
  'test/commands/realtime/talk.test.ts',
  'test/commands/realtime/talk-echo.test.ts',
  'test/repo/pack-install.test.ts',
  'test/fault-matrix.test.ts',
  'test/repo/typecheck.test.ts',
  'test/commands/realtime/talk-ptt.test.ts',
  'test/apilog/ws-session.test.ts',
  'test/cli.test.ts',
  'test/commands/stt/input-audio.test.ts',
  'test/commands/emulator/ci.test.ts',
  'test/term/zero-columns.test.ts',
  'test/commands/chat/markdown.test.ts',
  'test/core/atomic-file-commands.test.ts',
  'test/term/color.test.ts',
  'test/repo/import-direction.test.ts',
  'test/repo/unused.test.ts',
  'test/repo/packages.test.ts',
];

/**
 * Files that pack the packages and install the tarballs: npm pack (whose prepack builds a fresh copy of the tree) and
 * npm install -g, about 14 s of CPU between them, a seventh of the rest of the suite's, on a 2-core machine that the
 * suite keeps busy; they check packaging, which a change to src/ or test/ rarely touches. `npm test` runs them in CI
 * (CI set and not 0/false, as .ci/run runs it) or with SVC_TEST_PACKING=1, and vitest runs them when they are named
 * on its command line (`npx vitest run test/repo/pack-install.test.ts`); other runs leave them out.
 */
const PACKING = ['test/repo/pack-install.test.ts', 'packages/emulator/test/pack.test.ts'];
/**
 * Files of long real-time audio, left out the same way: the 20-turn full-duplex echo conversation (~2 minutes of real
 * time); test/commands/realtime/talk-echo.test.ts has the same check with 3 turns in every run.
 */
const LONG_REAL_TIME = ['test/commands/realtime/talk-echo-long.test.ts'];
const CI_ONLY = [...PACKING, ...LONG_REAL_TIME];
const set = (v: string | undefined) => !!v && !/^(0|false)$/i.test(v);
const named = (file: string) => process.argv.some((a) => a.length > 3 && file.endsWith(a.replace(/^\.\//, '')));
const leftOut = set(process.env.CI) || set(process.env.SVC_TEST_PACKING) ? [] : CI_ONLY.filter((f) => !named(f));

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

/**
 * Files that need what only the Linux set-up has: with SVC_TEST_SCOPE=portable (the macOS and Windows jobs of
 * .github/workflows/ci.yml) they are not collected, and the run says which and why. Linux runs them all.
 */
const LINUX_ONLY: Record<string, string[]> = {
  "real terminals (util-linux's script, tmux)": [
    'test/cmdutil/confirm.test.ts',
    'test/commands/chat/markdown.test.ts',
    'test/commands/chat/repl.test.ts',
    'test/commands/completion/shells.test.ts',
    'test/commands/phone/phone.test.ts',
    'test/commands/responses/markdown-log.test.ts',
    'test/commands/responses/params.test.ts',
    'test/commands/tts/terminal.test.ts',
    'test/runtime/no-input.test.ts',
    'test/term/color.test.ts',
    'test/term/table.test.ts',
    'test/term/zero-columns.test.ts',
  ],
  "sound devices (ALSA's file plugin, speaker, arecord)": [
    'test/audio/devices.test.ts',
    'test/commands/audio/audio.test.ts',
    'test/commands/realtime/talk-devices.test.ts',
    'test/commands/realtime/talk-echo.test.ts',
    'test/commands/realtime/talk-echo-long.test.ts',
    'test/commands/realtime/talk-ptt.test.ts',
    'test/commands/stt/listen.test.ts',
    'test/commands/tts/say.test.ts',
  ],
  'POSIX shells and signals, ELF, ffmpeg and the other tools npm run setup installs': [
    'test/apilog/log.test.ts',
    'test/apilog/ws-session.test.ts',
    'test/audio/backends.test.ts',
    'test/audio/sniff.test.ts',
    'test/audio/speaker-abi.test.ts',
    'test/cli.test.ts',
    'test/commands/completion/completion.test.ts',
    'test/commands/custom-voices/custom-voices.test.ts',
    'test/commands/emulator/ci.test.ts',
    'test/commands/files/interrupt.test.ts',
    'test/commands/stt/input-audio.test.ts',
    'test/core/atomic-file-commands.test.ts',
    'test/core/atomic-file.test.ts',
    'test/fault-matrix.test.ts',
    'test/faults.test.ts',
    'test/platform/setup.test.ts',
  ],
};
if (leftOut.length)
  console.log(`CI-only tests not collected (CI runs them; SVC_TEST_PACKING=1 or name the file): ${leftOut.join(' ')}`);
const portable = process.env.SVC_TEST_SCOPE === 'portable';
if (portable)
  for (const [why, files] of Object.entries(LINUX_ONLY))
    console.log(`SVC_TEST_SCOPE=portable: not collected, needing ${why}: ${files.join(' ')}`);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...leftOut, ...(portable ? Object.values(LINUX_ONLY).flat() : [])],
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
