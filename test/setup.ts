// Runs in every test file's worker.
// 1. After every test file: no API key may appear in anything a CLI process printed (stdout or stderr, --verbose
//    included). svc() checks each run as it ends; this also covers processes started with spawnSvc.
// 2. A CLI process started other than through the runner helpers (test/helpers/in-process.ts, subprocess.ts,
// terminal.ts) would escape that scan: child_process is wrapped
//    so that a command line naming the launcher (bin/svc.cjs) or the built CLI (dist/cli.js) throws unless a helper is
//    starting it.
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { afterAll, expect } from 'vitest';
import { appendFileSync, readFileSync } from 'node:fs';
import { scanCapturedOutput } from './helpers/secrets.js';
import { spawningThroughHelper } from './helpers/run-env.js';

const CLI = /bin\/svc\.cjs|\/dist\/cli\.js/;
const GUARDED = ['spawn', 'spawnSync', 'execFile', 'execFileSync', 'exec', 'execSync', 'fork'] as const;
const mark = Symbol.for('svc.test.spawnGuard');
/** the processes this worker started, by program (svc for the CLI), for SVC_TEST_CPU's log; kept across its files */
const spawnCount = Symbol.for('svc.test.spawnCount');
const counter = globalThis as unknown as { [spawnCount]: Record<string, number> };
counter[spawnCount] ??= {};
const cp = childProcess as unknown as Record<string, ((...a: unknown[]) => unknown) & { [mark]?: true }>;
for (const name of GUARDED) {
  const original = cp[name]!;
  if (original[mark]) continue;
  const guarded = Object.assign(
    function (this: unknown, ...args: unknown[]) {
      const commandLine = [args[0], ...(Array.isArray(args[1]) ? args[1] : [])].map(String).join(' ');
      const program = CLI.test(commandLine) ? 'svc' : (String(args[0]).split(/[\s/]/).filter(Boolean).pop() ?? '?');
      counter[spawnCount][program] = (counter[spawnCount][program] ?? 0) + 1;
      if (CLI.test(commandLine) && !spawningThroughHelper()) {
        throw new Error(
          `a test started the CLI without the runner helpers of test/helpers/ (its output would not be ` +
            `scanned for keys): ${commandLine}`,
        );
      }
      return original.apply(this, args);
    },
    { [mark]: true as const },
  );
  cp[name] = guarded;
}
syncBuiltinESMExports();

afterAll(() => {
  scanCapturedOutput();
});

// SVC_TEST_CPU=<file>: each test file's CPU appended to <file>, a line `seconds<TAB>worker<TAB>children<TAB>path<TAB>
// processes`: the worker's own (the file's imports included: setup files run again before each file) and its reaped
// children's (CLI processes, shells), from /proc, then the processes the file started by program (`svc:42 bash:3`)
// (docs/DEVELOPING.md, the suite's time). A worker runs one file at a time.
const cpuLog = process.env.SVC_TEST_CPU;
if (cpuLog && process.platform === 'linux') {
  /** utime + stime and cutime + cstime: fields 14-17 of /proc/self/stat, in seconds (100 clock ticks a second) */
  const cpu = () => {
    const f = readFileSync('/proc/self/stat', 'utf8')
      .replace(/^.*\) /, '')
      .split(' ')
      .slice(11, 15)
      .map(Number);
    return [(f[0]! + f[1]!) / 100, (f[2]! + f[3]!) / 100] as const;
  };
  const [self, children] = cpu();
  const spawnsBefore = { ...counter[spawnCount] };
  afterAll(() => {
    const [selfNow, childrenNow] = cpu();
    const [w, c] = [selfNow - self, childrenNow - children];
    const spawns = Object.entries(counter[spawnCount])
      .map(([program, n]) => [program, n - (spawnsBefore[program] ?? 0)] as const)
      .filter(([, n]) => n > 0)
      .map(([program, n]) => `${program}:${n}`)
      .join(' ');
    const line = [(w + c).toFixed(2), w.toFixed(2), c.toFixed(2), expect.getState().testPath, spawns].join('\t');
    appendFileSync(cpuLog, `${line}\n`);
  });
}
