// Test helpers: an emulator on a real loopback socket, and the built CLI run as a process against it.
// Every run checks that no API key appears in what the CLI printed (stdout and stderr, --verbose included).
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import { execa, type ResultPromise } from 'execa';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/server.js';
import { DEFAULT_EMULATOR_KEY } from '../../src/emulator/auth.js';

export const ROOT = resolve(import.meta.dirname, '..', '..');
/** the launcher; only this module starts it (see spawningThroughHelper) */
const LAUNCHER = join(ROOT, 'bin', 'svc.cjs');
/** whether a path or file URL is the launcher (for import traces) */
export const isLauncher = (pathOrUrl: string): boolean => pathOrUrl.endsWith(LAUNCHER);
/** the launcher's source (for checks of what it loads) */
export const launcherSource = (): string => readFileSync(LAUNCHER, 'utf8');

/** Keys handed out by these helpers: none of them may ever appear in CLI output. */
const SECRETS = new Set<string>([DEFAULT_EMULATOR_KEY]);
/** Everything every CLI process of this test file printed; test/setup.ts scans it after the file's tests. */
const CAPTURED: { args: unknown; text: string }[] = [];

export interface TestEmulator extends Emulator {
  /** a fresh key with every ACL, registered on the emulator */
  key: string;
  dir: string;
  /** requests that reached the emulator, excluding admin calls */
  requests(): { method: string; path: string; body?: string; query: Record<string, unknown>; headers: Record<string, unknown> }[];
  clearRequests(): void;
}

export async function startTestEmulator(opts: EmulatorOptions = {}): Promise<TestEmulator> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const emu = await startEmulator({ stateDir: join(dir, 'state'), quietLog: true, ...opts });
  const rec = emu.addKey({ name: 'test key' });
  SECRETS.add(rec.key);
  SECRETS.add(emu.defaultKey);
  const closeEmulator = emu.close.bind(emu);
  const addKey = emu.addKey.bind(emu);
  return Object.assign(emu, {
    addKey(partial?: Parameters<typeof addKey>[0]) {
      const k = addKey(partial);
      SECRETS.add(k.key);
      return k;
    },
    key: rec.key,
    dir,
    requests: () => emu.core.requests,
    clearRequests: () => {
      emu.core.requests.length = 0;
    },
    async close() {
      await closeEmulator();
      rmSync(dir, { recursive: true, force: true });
    },
  }) as TestEmulator;
}

/** Register a key as a secret that must never be printed. */
export function registerSecret(key: string): void {
  SECRETS.add(key);
}

export interface RunOptions {
  emu?: TestEmulator;
  /** API key to use (default: the emulator's test key); null for none */
  key?: string | null;
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
  inputFile?: string;
  /** 'pipe' to write to the process's stdin while it runs (spawnSvc) */
  stdin?: 'pipe';
  /** 'buffer' keeps stdout/stderr as bytes (spawnSvc) */
  encoding?: 'utf8' | 'buffer';
  /** node's own options, before the launcher (e.g. ['--require', tracer]) */
  nodeArgs?: string[];
  cwd?: string;
  timeout?: number;
  /** config dir (default: a fresh temp dir per run) */
  configDir?: string;
}

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** The environment every CLI process of the suite gets (nothing is inherited but PATH, HOME and TMPDIR). */
function svcEnv(opts: RunOptions): Record<string, string | undefined> {
  const configDir = opts.configDir ?? mkdtempSync(join(tmpdir(), 'svc-cfg-'));
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    SVC_CONFIG_DIR: configDir,
    SVC_DATA_DIR: join(configDir, 'data'),
    ALSA_CONFIG_PATH: process.env.ALSA_CONFIG_PATH ?? join(ROOT, 'test', 'fixtures', 'asound-null.conf'),
    SVC_BASE_URL: opts.emu?.url,
    SVC_API_KEY: opts.key === null ? undefined : (opts.key ?? opts.emu?.key),
    ...opts.env,
  };
}

/**
 * The helpers below are the only way a test starts the CLI: test/setup.ts refuses (throws) any process whose
 * command line names the launcher unless one of them is starting it, and test/suite-rules.test.ts fails on a
 * test file that mentions the launcher.
 */
let helperSpawning = 0;
export function spawningThroughHelper(): boolean {
  return helperSpawning > 0;
}
function throughHelper<T>(start: () => T): T {
  helperSpawning++;
  try {
    return start();
  } finally {
    helperSpawning--;
  }
}

const text = (v: unknown): string => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : String(v ?? ''));

/** Start the CLI as a process (for tests that need to signal it, pipe into it or read it while it runs). */
export function spawnSvc(args: string[], opts: RunOptions = {}): ResultPromise {
  const stdin = opts.stdin ?? (opts.input === undefined && opts.inputFile === undefined ? 'ignore' : undefined);
  const child = throughHelper(
    () =>
      execa('node', [...(opts.nodeArgs ?? []), LAUNCHER, ...args], {
        env: svcEnv(opts),
        extendEnv: false,
        input: opts.input,
        inputFile: opts.inputFile,
        stdin,
        cwd: opts.cwd ?? ROOT,
        reject: false,
        timeout: opts.timeout ?? 30_000,
        stripFinalNewline: false,
        encoding: opts.encoding ?? 'utf8',
      }) as unknown as ResultPromise,
  );
  child.then(
    (r) => CAPTURED.push({ args, text: text(r.stdout) + text(r.stderr) }),
    () => {},
  );
  return child;
}

/** Scan everything captured so far for any registered key (called after each test file by test/setup.ts). */
export function scanCapturedOutput(): number {
  for (const c of CAPTURED) assertNoSecrets(c.text, c.args);
  return CAPTURED.length;
}

/** Run the CLI to completion. Fails the test if any registered key shows up in its output. */
export async function svc(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const r = await spawnSvc(args, opts);
  const result = { exitCode: r.exitCode ?? -1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
  assertNoSecrets(result.stdout + result.stderr, args);
  return result;
}

/** Run the CLI to completion with stdout kept as bytes (audio in a pipe); scanned like svc(). */
export async function svcBytes(args: string[], opts: RunOptions = {}): Promise<{ exitCode: number; stdout: Buffer; stderr: string }> {
  const r = await spawnSvc(args, { ...opts, encoding: 'buffer' });
  const result = { exitCode: r.exitCode ?? -1, stdout: Buffer.from(r.stdout as unknown as Uint8Array), stderr: Buffer.from(r.stderr as unknown as Uint8Array).toString('utf8') };
  assertNoSecrets(result.stdout.toString('latin1') + result.stderr, args);
  return result;
}

/** A stream that keeps what is written to it, as a terminal of `columns` or as a pipe. */
class MemoryOutput extends Writable {
  private readonly chunks: Buffer[] = [];
  constructor(
    readonly isTTY: boolean,
    readonly columns: number | undefined,
  ) {
    super({
      write: (chunk: Buffer | string, _enc, done) => {
        this.chunks.push(Buffer.from(chunk));
        done();
      },
    });
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

export interface InProcessOptions extends RunOptions {
  /** stdout and stderr are a terminal (default: pipes) */
  tty?: boolean;
  /** the terminal's width (with tty) */
  columns?: number;
}

/**
 * Run a command line in this process, as gh's tests do with IOStreams: the same command tree, specs and runners as
 * the binary, with in-memory streams (a pipe, or a terminal of a chosen width) and the environment svc() would
 * give, against the test emulator over loopback. Scanned for keys like svc(). For behaviour that needs a process of
 * its own (signals, exit on a closed pipe, real terminals, sound devices, the launcher), use svc()/spawnSvc().
 */
export async function cli(args: string[], opts: InProcessOptions = {}): Promise<RunResult> {
  const { runCli } = await import('../../src/cli.js');
  const input = opts.inputFile !== undefined ? readFileSync(opts.inputFile) : opts.input;
  const stdin = Object.assign(Readable.from(input === undefined ? [] : [Buffer.from(input)]), { isTTY: false });
  const stdout = new MemoryOutput(!!opts.tty, opts.tty ? (opts.columns ?? 80) : undefined);
  const stderr = new MemoryOutput(!!opts.tty, opts.tty ? (opts.columns ?? 80) : undefined);
  const abort = new AbortController();
  // a working directory of its own (tests of one file run one after another; the pool runs files in processes)
  const cwd = process.cwd();
  if (opts.cwd) process.chdir(opts.cwd);
  let exitCode: number;
  try {
    exitCode = await runCli(args, {
      streams: { stdin, stdout, stderr },
      env: { ...svcEnv(opts), TERM: opts.tty ? 'xterm' : undefined },
      control: { signal: abort.signal, signalExit: undefined, setInterruptHandler: () => {} },
    });
  } finally {
    process.chdir(cwd);
  }
  const result = { exitCode, stdout: stdout.text(), stderr: stderr.text() };
  CAPTURED.push({ args, text: result.stdout + result.stderr });
  assertNoSecrets(result.stdout + result.stderr, args);
  return result;
}

/** Run the `svc` that `npm install -g --prefix PREFIX` put on PREFIX's PATH (the packaging test); scanned like svc(). */
export async function svcInstalled(prefix: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const r = await throughHelper(() =>
    execa(join(prefix, 'bin', 'svc'), args, {
      env: svcEnv(opts),
      extendEnv: false,
      input: opts.input,
      stdin: opts.input === undefined ? 'ignore' : undefined,
      cwd: opts.cwd ?? tmpdir(),
      reject: false,
      timeout: opts.timeout ?? 60_000,
    }),
  );
  const result = { exitCode: r.exitCode ?? -1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
  assertNoSecrets(result.stdout + result.stderr, args);
  return result;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** `node <launcher> args…` as one shell word list */
const commandLine = (args: string[]) => ['node', LAUNCHER, ...args].map(shellQuote).join(' ');

/**
 * Run a bash script (with pipefail) in which `svc` is the CLI: `svcShell('svc models list | head -1', {emu})`;
 * `args` are the script's "$@" (`svcShell('ulimit -f 1; svc "$@"', {emu, args})`). Its output is scanned like svc().
 */
export async function svcShell(script: string, opts: RunOptions & { args?: string[] } = {}): Promise<RunResult> {
  const r = await throughHelper(() =>
    execa('bash', ['-o', 'pipefail', '-c', `svc() { node ${shellQuote(LAUNCHER)} "$@"; }\n${script}`, 'svc-shell', ...(opts.args ?? [])], {
      env: svcEnv(opts),
      extendEnv: false,
      input: opts.input,
      stdin: opts.input === undefined ? 'ignore' : undefined,
      cwd: opts.cwd ?? ROOT,
      reject: false,
      timeout: opts.timeout ?? 30_000,
    }),
  );
  const result = { exitCode: r.exitCode ?? -1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
  assertNoSecrets(result.stdout + result.stderr, script);
  return result;
}

/**
 * Run the CLI with stdin, stdout and stderr on a pseudo-terminal (util-linux `script`), of `cols` × `rows` when
 * given; `typed` is what the user types (default: nothing, stdin closed). Returns what the terminal showed (every
 * byte, escapes included), scanned for keys.
 */
export async function svcOnTerminal(
  args: string[],
  opts: RunOptions & { typed?: string; cols?: number; rows?: number } = {},
): Promise<{ exitCode: number; screen: string }> {
  const size = opts.cols === undefined ? '' : `stty cols ${opts.cols} rows ${opts.rows ?? (opts.cols ? 30 : 0)}; `;
  const r = await throughHelper(() =>
    execa('script', ['-qfec', `${size}exec ${commandLine(args)}`, '/dev/null'], {
      env: svcEnv(opts),
      extendEnv: false,
      cwd: opts.cwd ?? ROOT,
      reject: false,
      timeout: opts.timeout ?? 30_000,
      ...(opts.typed === undefined ? { stdin: 'ignore' as const } : { input: opts.typed }),
    }),
  );
  const screen = String(r.stdout ?? '');
  assertNoSecrets(screen, args);
  return { exitCode: r.exitCode ?? -1, screen };
}

/**
 * A tmux server of its own for terminal tests: `start` runs the CLI in a window of the given size (then prints
 * `EXIT=<code>` and stays, so the screen can still be read); every `screen()` read is scanned for keys.
 */
export class TmuxTerminal {
  private socket = TmuxTerminal.socketName();

  /**
   * Each start gets a server of its own: a new session on the socket of a server just killed can meet that server
   * still exiting ("server exited unexpectedly").
   */
  private static socketName(): string {
    return `svc-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  }

  private tmux(...args: string[]): string {
    return throughHelper(() => execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' }));
  }

  start(args: string[], opts: RunOptions & { cols?: number; rows?: number } = {}): void {
    const vars = Object.entries({ ...svcEnv(opts), TERM: 'xterm' })
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${shellQuote(v!)}`)
      .join(' ');
    const cmd = `cd ${shellQuote(opts.cwd ?? ROOT)} && env -i ${vars} ${commandLine(args)}; echo "EXIT=$?"; sleep 60`;
    this.stop();
    this.socket = TmuxTerminal.socketName();
    this.tmux('new-session', '-d', '-x', String(opts.cols ?? 120), '-y', String(opts.rows ?? 40), '-s', 'svc', cmd);
  }

  /**
   * Start a shell command line (e.g. `bash --norc`) in which `svc` on PATH is the CLI, for completion tests; the
   * environment is the suite's plus `env`.
   */
  startShell(command: string, opts: RunOptions & { cols?: number; rows?: number } = {}): void {
    const bin = mkdtempSync(join(tmpdir(), 'svc-bin-'));
    writeFileSync(join(bin, 'svc'), `#!/bin/sh\nexec ${commandLine([])} "$@"\n`, { mode: 0o755 });
    const base = svcEnv(opts);
    const vars = Object.entries({ TERM: 'xterm', ...base, PATH: `${bin}:${base.PATH}` })
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${shellQuote(v!)}`)
      .join(' ');
    this.stop();
    this.socket = TmuxTerminal.socketName();
    this.tmux('new-session', '-d', '-x', String(opts.cols ?? 120), '-y', String(opts.rows ?? 40), '-s', 'svc', `cd ${shellQuote(opts.cwd ?? ROOT)} && env -i ${vars} ${command}`);
  }

  /** tmux send-keys: text, or key names such as 'Enter', 'Space', 'C-c' */
  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', 'svc', ...keys);
  }

  /** The screen's text; with `escapes`, its styles as SGR sequences too (capture-pane -e). */
  screen(opts: { escapes?: boolean } = {}): string {
    const s = this.tmux('capture-pane', '-p', '-J', ...(opts.escapes ? ['-e'] : []), '-t', 'svc', '-S', '-200');
    assertNoSecrets(s, 'tmux screen');
    return s;
  }

  /** Poll the screen until `what` shows (after offset `after`); no timing is asserted, the limit only avoids hanging. */
  async waitFor(what: string | RegExp, after = 0, tries = 300): Promise<string> {
    for (let i = 0; i < tries; i++) {
      const screen = this.screen();
      const rest = screen.slice(after);
      if (typeof what === 'string' ? rest.includes(what) : what.test(rest)) return screen;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the terminal never showed ${String(what)}:\n${this.screen()}`);
  }

  stop(): void {
    try {
      execFileSync('tmux', ['-L', this.socket, 'kill-server'], { stdio: 'ignore' });
    } catch {
      // not running
    }
  }
}

export function assertNoSecrets(text: string, context: unknown): void {
  // `svc emulator serve` prints the built-in emulator key on purpose (issue 15: CI needs it; it is public)
  const serve = Array.isArray(context) && context[0] === 'emulator' && context[1] === 'serve';
  for (const s of SECRETS) {
    if (serve && s === DEFAULT_EMULATOR_KEY) continue;
    if (s && text.includes(s)) throw new Error(`an API key leaked into CLI output (${JSON.stringify(context)})`);
  }
  if (process.env.SVC_TEST_OUTPUT_LOG) appendFileSync(process.env.SVC_TEST_OUTPUT_LOG, text);
}

export function tempDir(prefix = 'svc-t-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writeTemp(name: string, content: string | Buffer): string {
  const d = tempDir();
  const p = join(d, name);
  writeFileSync(p, content);
  return p;
}

/**
 * A folder holding an executable `svc` (the launcher, as a user's install has it) for scripts that find svc on the
 * PATH, such as a CI recipe run by svcShell (after `unset -f svc`, so that its function does not shadow it).
 */
export function svcBinDir(): string {
  const bin = mkdtempSync(join(tmpdir(), 'svc-bin-'));
  writeFileSync(join(bin, 'svc'), `#!/bin/sh\nexec node ${shellQuote(LAUNCHER)} "$@"\n`, { mode: 0o755 });
  return bin;
}
