import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files that take longest (an emulator process under attack, real-time audio, terminals, timeouts, npm pack, a cold
 * tsc), longest first as a run of the 197 files measured them (the full run's own first: the floods, npm pack; the
 * 20-turn echo test starts last: LAST below). vitest orders files by the durations of its last run, and without that
 * cache (a fresh clone: CI) by size, which would start some of these last, where they alone would make the tail of the
 * run. They start first; the rest keep vitest's order. Last in the list, the three files that read the source graph
 * (test/helpers/source-graph.ts: TypeScript's parser over every file, ~1 s each, unless its cache has them) when they
 * are imported: vitest's durations leave that out, so it ordered them last.
 */
const LONGEST = [
  'packages/emulator/test/hostile-floods.test.ts',
  'test/repo/pack-install.test.ts',
  'test/cli.test.ts',
  'test/net/proxy-tls.test.ts',
  'test/commands/realtime/talk-echo.test.ts',
  'test/commands/completion/shells.test.ts',
  'test/commands/realtime/talk-latency.test.ts',
  'test/core/atomic-file-commands.test.ts',
  'test/commands/realtime/talk-turns.test.ts',
  'test/fault-matrix.test.ts',
  'test/commands/mcp/serve.test.ts',
  'test/audio/devices.test.ts',
  'test/commands/emulator/ci.test.ts',
  'test/commands/templates/templates.test.ts',
  'test/commands/stt/input-audio.test.ts',
  'test/batch/kill-resume.test.ts',
  'test/commands/alias/alias.test.ts',
  'packages/emulator/test/hostile.test.ts',
  'test/commands/realtime/talk.test.ts',
  'test/faults.test.ts',
  'test/commands/realtime/talk-mcp.test.ts',
  'test/apilog/ws-session.test.ts',
  'packages/emulator/test/hardening.test.ts',
  'test/commands/audio/audio.test.ts',
  'test/commands/tts/say.test.ts',
  'test/docs-examples.test.ts',
  'test/commands/realtime/talk-ptt.test.ts',
  'test/commands/chat/repl.test.ts',
  'test/repo/import-direction.test.ts',
  'test/repo/unused.test.ts',
  'test/repo/packages.test.ts',
];

/**
 * Files that start last: the 20-turn echo test (~200 s of real-time conversation), started first beside four workers
 * in the run's busiest seconds, had its agent hear itself at its first try in 4 of the 6 Node runs of two clean-clone
 * CI runs (passing at its retry; its room's echo ~0.6 s late leaves the start-up hold alone to keep it out:
 * docs/realtime.md), and in none of 10 tries beside three or four busy processes. Last, it runs as the others end.
 */
const LAST = ['test/commands/realtime/talk-echo-long.test.ts'];

/**
 * The full run and the everyday run. `npm test` runs every file in CI (`CI` set and not 0/false, as on GitHub's
 * runners) or with SVC_TEST_FULL=1 (.ci/run sets it); other runs (a developer's `npm test`, `npx vitest run`) leave
 * out the files below, each heavy in CPU on a 2-core machine the suite keeps busy, and print which; a fast version
 * of a file's checks, where one can be, stays in the everyday run (named beside it). vitest runs a file of this list
 * when it is named on its command line (`npx vitest run test/repo/pack-install.test.ts`). The decision is handed to
 * the workers as SVC_TEST_FULL=1, so that a file can also run its generated inputs at full size only then
 * (test/helpers/full.ts; those files are listed in FULL_SIZE, printed too). docs/DEVELOPING.md says the same.
 */
const CI_ONLY: Record<string, string> = {
  'test/repo/pack-install.test.ts':
    'npm pack (whose prepack builds a fresh copy of the tree) and npm install -g, ~10 s of CPU; run it before a ' +
    "change to packaging (package.json's files, bin/, scripts/, the bundle)",
  'packages/emulator/test/pack.test.ts':
    "svc-formats' and the emulator's tarballs packed (a build each) and installed alone, ~24 s of CPU; as above",
  'packages/emulator/test/hostile-floods.test.ts':
    'the emulator process flooded: 17 MiB messages on each WebSocket route, 240 MiB sessions, an MP3 REST TTS, ' +
    '~9 s of CPU (hostile.test.ts keeps one 17 MiB message and a long mu-law REST TTS)',
  'test/docs-examples.test.ts':
    'the examples of docs/scripting.md and docs/text.md run as written (a bash and svc processes each), ~2 s of ' +
    'CPU: run it, and the two below, after a change to the docs or to a command they show',
  'test/commands/agents/docs-examples.test.ts': "docs/agent-tests.md's and docs/agents-phone.md's examples, ~1.5 s",
  'test/commands/batch/docs-examples.test.ts': "docs/batch.md's examples as written, ~1 s",
  'test/repo/single-executable.test.ts':
    'npm run build:exe (svc and svc-emulator as single executables, ~20 s of CPU, ~260 MB in dist/exe/) and each run ' +
    'on a PATH without node, then their release archive (~9 s of CPU, ~600 MB for a moment); run it before a change ' +
    'to scripts/build-exe.mjs, scripts/release-archive.mjs or to what the code reads by path',
  'test/commands/realtime/talk-echo-long.test.ts':
    'the 20-turn full-duplex conversation through the simulated echo path, ~2 minutes of real time ' +
    '(talk-echo.test.ts has the same check with 3 turns in every run)',
};
/** Files whose generated inputs are smaller outside the full run (what the full run adds, per file). */
const FULL_SIZE: Record<string, string> = {
  'test/fault-matrix.test.ts':
    'every fault for every command family (~290 rows); outside it every family meets ok, refused, silent and one ' +
    'way of failing stdout (of 4: a bash and a CLI process in the first family of each way, in-process in the ' +
    'others), and every other fault is met by one family (~120)',
  'test/commands/emulator/storage-media.test.ts':
    'the default quota of 1000 public links filled (2,001 requests, each journaled; the setting at 25 outside it)',
  'test/commands/emulator/durability.test.ts': '500 acknowledged uploads before kill -9, then each read back (150)',
  'packages/emulator/test/hostile.test.ts':
    'the requests that must not hold the event loop at full size: embeddings of 128 long inputs (32 outside it), a ' +
    '10-minute transcription (3), the first search of 100 documents (30)',
  'test/docs/examples.test.ts':
    'every example of the README, the docs and --help: the lines that need a shell (pipes, $(…), xargs, jq) in bash ' +
    'with svc on the PATH, ~2 s of CPU (outside it they are counted, and the simple commands run in-process)',
  'test/net/proxy-tls.test.ts':
    'the five ways to a server (direct, a proxy, with auth, NO_PROXY, a dead proxy) for all seven kinds of ' +
    'connection (outside it: a REST request, an event stream and a WebSocket)',
  'test/audio/echo-canceller.test.ts':
    'the speexdsp WebAssembly module rebuilt with emcc (where emcc 3.1.6 is installed) and compared with the ' +
    'committed one, ~3.5 s of CPU (outside it: its sha256 and the pins of scripts/build-aec.mjs)',
  'test/audio/clock-drift.test.ts':
    'the echo path with the speaker on another clock for 30 s at +208 ppm (with and without the correction), 24 s at ' +
    '-208, 16 s on one clock (16, 14 and 12 s outside it, the same bounds)',
  'test/audio/codecs.test.ts': 'text through MP3 (lamejs) at each of 6 rates (the lowest and the highest outside it)',
  'test/net/reader-fuzz.test.ts': '100,000 generated inputs per reader (20,000 outside it)',
  'test/commands/realtime/talk-memory.test.ts':
    'an hour of answer through a 40 MB heap to a file (~190 MB; ~78 MB outside it, more than a held answer fits), ' +
    'half an hour recorded (~190 MB; a quarter, ~97 MB, its peak RSS checked against the unrecorded run only)',
  'test/commands/tts/stream-memory.test.ts': '200 lines of speech through a 40 MB heap, ~180 MB of PCM (80, ~72 MB)',
  'test/commands/calls/join-memory.test.ts':
    "600 turns of a call through a 40 MB heap, ~180 MB of the agent's audio (240)",
  'test/apilog/log.test.ts':
    '8 CLI processes paging 200 files one per call at once (50 outside it), 8 writing 3 big records each (1)',
};
const set = (v: string | undefined) => !!v && !/^(0|false)$/i.test(v);
const named = (file: string) => process.argv.some((a) => a.length > 3 && file.endsWith(a.replace(/^\.\//, '')));
const full = set(process.env.CI) || set(process.env.SVC_TEST_FULL);
if (full) process.env.SVC_TEST_FULL = '1';
else delete process.env.SVC_TEST_FULL;
const leftOut = full ? [] : Object.keys(CI_ONLY).filter((f) => !named(f));

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const file = relative(f.project.config.root, f.moduleId);
      if (LAST.includes(file)) return LONGEST.length + 1;
      const i = LONGEST.indexOf(file);
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
    'test/commands/chat/mcp-approve.test.ts',
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
  "/proc (the emulator process's memory, read after each attack)": [
    'packages/emulator/test/hostile-floods.test.ts',
    'packages/emulator/test/hostile.test.ts',
  ],
  "/proc (the CLI's peak RSS over an hour of audio)": [
    'test/commands/realtime/talk-memory.test.ts',
    'test/commands/stt/listen-memory.test.ts',
  ],
  '/proc/self/fd (svc mcp serve hands a command the file it opened and checked; elsewhere the check is by path)': [
    'test/mcp/root.test.ts',
  ],
  'POSIX shells and signals, ELF, ffmpeg and the other tools npm run setup installs': [
    'test/apilog/log.test.ts',
    'test/apilog/ws-session.test.ts',
    'test/audio/backends.test.ts',
    'test/audio/sniff.test.ts',
    'test/audio/speaker-abi.test.ts',
    'test/batch/kill-resume.test.ts',
    // bash, POSIX folder modes and symlinks, setpriv under root
    'test/commands/batch/safety.test.ts',
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
    'test/mcp/stdio-transport.test.ts',
    'test/platform/setup.test.ts',
  ],
};
if (leftOut.length || (!full && Object.keys(FULL_SIZE).length)) {
  console.log('not the full run (CI=true or SVC_TEST_FULL=1 runs it; docs/DEVELOPING.md):');
  for (const f of leftOut) console.log(`  not collected: ${f} (${CI_ONLY[f]})`);
  if (!full)
    for (const [f, what] of Object.entries(FULL_SIZE)) console.log(`  smaller inputs: ${f} (full run: ${what})`);
}
const portable = process.env.SVC_TEST_SCOPE === 'portable';
if (portable)
  for (const [why, files] of Object.entries(LINUX_ONLY))
    console.log(`SVC_TEST_SCOPE=portable: not collected, needing ${why}: ${files.join(' ')}`);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...leftOut, ...(portable ? Object.values(LINUX_ONLY).flat() : [])],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup.ts'],
    reporters: ['default', './test/reporters/summary.ts'],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The suite waits more than it computes (processes, sockets, terminals, real-time audio): at 2 workers the
    // 2 cores were 57% busy. More workers overlap those waits. Measured on this 2-core machine (vitest's Duration,
    // no duration cache): 2 workers 154 s; 4 workers 76-78 s; 5 workers 71-72 s; 6 workers 70 s (not worth the
    // extra contention on the real-time audio tests). Again with 154 files, the tests of output in-process and the
    // waiting tests of a file run at once (the 2 cores ~85% busy): 4 workers 78 s, 5 workers 70-72 s, 6 workers 71 s.
    // With 199 files (batch, MCP, voice devices and latency, echo cancellation, templates, agents as code), quiet
    // machine: 5 workers 89 s (126 s of CPU, the cores 74% busy: real-time files held worker slots), 6 workers 77 s
    // (126 s, 81%), 8 workers 78 s (137 s: each worker transforms and imports the modules again). With 194 files
    // (the real-time files shortened, process runs moved in-process, the docs' examples in the full run), quiet:
    // 5 workers 65 s, 6 workers 59-63 s (105-111 s of CPU, ~88% busy), 7 workers 56-58 s (102-106 s). The full
    // run (CI) keeps 5: its two-minute 20-turn echo conversation and the floods run beside the rest, and at 7 workers
    // the echo tests' real-time audio missed its deadlines in 2 of 7 clean-clone runs (a false barge-in, a stall).
    maxWorkers: full ? 5 : 7,
    // A worker runs file after file instead of a fresh fork for each of the 112 files: the forks' start-up was
    // about a third of the suite's CPU (178 s -> 122 s). Files share no state: each starts its own emulator and
    // temp dirs, and test/setup.ts guards child_process once per worker.
    isolate: false,
    // The everyday run keeps the transformed modules on disk (node_modules/.experimental-vitest-cache, by content)
    // for the next run: the main process transformed every file each run (a light third of the files: 22.5 -> 20 s of
    // CPU warm). The full run starts without it, as a fresh clone does.
    experimental: { fsModuleCache: !full },
    sequence: { sequencer: LongestFirst },
  },
});
