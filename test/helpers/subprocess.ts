// The built CLI as a process of its own (node bin/svc.cjs): for the launcher, signals, a closed pipe, sound devices,
// NODE_OPTIONS and PATH tricks, shell pipelines and the installed package. Every run's output is scanned for keys.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { ROOT } from './files.js';
import { LAUNCHER, shellQuote, svcEnv, throughHelper, type RunOptions, type RunResult } from './run-env.js';
import { assertNoSecrets, captureOutput } from './secrets.js';

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
    (r) => captureOutput(args, text(r.stdout) + text(r.stderr)),
    () => {},
  );
  return child;
}

/** Run the CLI to completion. Fails the test if any registered key shows up in its output. */
export async function svcProcess(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const r = await spawnSvc(args, opts);
  const result = { exitCode: r.exitCode ?? -1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
  assertNoSecrets(result.stdout + result.stderr, args);
  return result;
}

/** Run the CLI to completion with stdout kept as bytes (audio in a pipe); scanned like svcProcess(). */
export async function svcBytes(
  args: string[],
  opts: RunOptions = {},
): Promise<{ exitCode: number; stdout: Buffer; stderr: string }> {
  const r = await spawnSvc(args, { ...opts, encoding: 'buffer' });
  const result = {
    exitCode: r.exitCode ?? -1,
    stdout: Buffer.from(r.stdout as unknown as Uint8Array),
    stderr: Buffer.from(r.stderr as unknown as Uint8Array).toString('utf8'),
  };
  assertNoSecrets(result.stdout.toString('latin1') + result.stderr, args);
  return result;
}

/**
 * Run the `svc` that `npm install -g --prefix PREFIX` put on PREFIX's PATH (the packaging test); scanned like
 * svcProcess().
 */
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

/**
 * Run a bash script (with pipefail) in which `svc` is the CLI: `svcShell('svc models list | head -1', {emu})`;
 * `args` are the script's "$@" (`svcShell('ulimit -f 1; svc "$@"', {emu, args})`). Its output is scanned like
 * svcProcess().
 */
export async function svcShell(script: string, opts: RunOptions & { args?: string[] } = {}): Promise<RunResult> {
  const r = await throughHelper(() =>
    execa(
      'bash',
      [
        '-o',
        'pipefail',
        '-c',
        `svc() { node ${shellQuote(LAUNCHER)} "$@"; }\n${script}`,
        'svc-shell',
        ...(opts.args ?? []),
      ],
      {
        env: svcEnv(opts),
        extendEnv: false,
        input: opts.input,
        stdin: opts.input === undefined ? 'ignore' : undefined,
        cwd: opts.cwd ?? ROOT,
        reject: false,
        timeout: opts.timeout ?? 30_000,
      },
    ),
  );
  const result = { exitCode: r.exitCode ?? -1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
  assertNoSecrets(result.stdout + result.stderr, script);
  return result;
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

/**
 * A Node program of a test's own (not the CLI: test/setup.ts refuses the launcher started here), run to its end with
 * this Node: for what must happen in a process apart (an abort inside a native library, a module resolved afresh).
 */
export function nodeProgram(
  file: string,
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeout?: number } = {},
): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [file], { ...opts, encoding: 'utf8' });
}

/** nodeProgram() without blocking this process (for a program that talks to the emulator of the test), with flags. */
export async function nodeProgramAsync(
  file: string,
  opts: { env?: NodeJS.ProcessEnv; nodeArgs?: string[] } = {},
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const r = await execa(process.execPath, [...(opts.nodeArgs ?? []), file], {
    env: opts.env,
    extendEnv: false,
    reject: false,
    stripFinalNewline: false,
  });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** `spawnSvc` to its end, with the process's peak RSS (VmHWM, read from /proc every 20 ms: Linux only). */
export async function svcPeakRss(args: string[], opts: RunOptions = {}) {
  const run = spawnSvc(args, opts);
  let peak = 0;
  const poll = setInterval(() => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${run.pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]) * 1024);
    } catch {
      // exited
    }
  }, 20);
  const result = await run.finally(() => clearInterval(poll));
  return { result, peak };
}

/**
 * Run a single executable of `npm run build:exe` (dist/exe/svc, svc-emulator) with nothing but `env`: no variable
 * of the suite's run is inherited, so a PATH without node and an empty HOME are a machine without Node. Scanned
 * like svcProcess().
 */
export async function svcExecutable(
  file: string,
  args: string[],
  env: Record<string, string>,
  opts: { cwd: string; timeout?: number },
): Promise<RunResult> {
  const r = await throughHelper(() =>
    execa(file, args, {
      env,
      extendEnv: false,
      stdin: 'ignore',
      cwd: opts.cwd,
      reject: false,
      timeout: opts.timeout ?? 60_000,
    }),
  );
  const result = { exitCode: r.exitCode ?? -1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
  assertNoSecrets(result.stdout + result.stderr, args);
  return result;
}

/**
 * scripts/release-archive.mjs (the release workflow's packing and sums, run here as the workflow runs it), with
 * `env` over this process's: the program it asks for man pages and completions (`--svc`) may be the launcher.
 */
export async function releaseArchive(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const r = await throughHelper(() =>
    execa(process.execPath, [join(ROOT, 'scripts', 'release-archive.mjs'), ...args], {
      cwd: ROOT,
      env,
      reject: false,
      timeout: 300_000,
    }),
  );
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
}

/** `npm run build:exe`'s script (scripts/build-exe.mjs) on the built tree: dist/exe/svc and svc-emulator. */
export async function buildExecutables(): Promise<{ exitCode: number; output: string }> {
  const r = await execa(process.execPath, [join(ROOT, 'scripts', 'build-exe.mjs')], {
    cwd: ROOT,
    reject: false,
    all: true,
  });
  return { exitCode: r.exitCode ?? -1, output: String(r.all ?? '') };
}
