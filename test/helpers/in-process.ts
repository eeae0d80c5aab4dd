// The CLI run in the test's own process, as gh's tests do with IOStreams: runCli of src/cli.ts with in-memory
// streams (a pipe, or a terminal of a chosen width). The default runner for tests of output and exit codes.
import { readFileSync } from 'node:fs';
import { clearLine, cursorTo, moveCursor } from 'node:readline';
import { Readable, Writable } from 'node:stream';
import { svcEnv, type RunOptions, type RunResult } from './run-env.js';
import { assertNoSecrets, captureOutput } from './secrets.js';

/** A stream that keeps what is written to it, as a terminal of `columns` or as a pipe. */
class MemoryOutput extends Writable {
  private readonly chunks: Buffer[] = [];
  constructor(
    readonly isTTY: boolean,
    readonly columns: number | undefined,
    /** every write fails with this errno code (a full disk: ENOSPC) */
    fails?: string,
    onWrite?: (text: string) => void,
  ) {
    super({
      write: (chunk: Buffer | string, _enc, done) => {
        if (fails && Buffer.from(chunk).length > 0)
          return done(Object.assign(new Error(`${fails}: write failed`), { code: fails, syscall: 'write' }));
        this.chunks.push(Buffer.from(chunk));
        onWrite?.(Buffer.from(chunk).toString('utf8'));
        done();
      },
    });
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
  // a terminal's cursor moves, as tty.WriteStream has them (spinners and progress bars call them): their escapes
  cursorTo(x: number, y?: number, done?: () => void): boolean {
    return cursorTo(this, x, y, done);
  }
  moveCursor(dx: number, dy: number, done?: () => void): boolean {
    return moveCursor(this, dx, dy, done);
  }
  clearLine(dir: -1 | 0 | 1, done?: () => void): boolean {
    return clearLine(this, dir, done);
  }
}

export interface InProcessOptions extends RunOptions {
  /** stdout and stderr are a terminal (default: pipes) */
  tty?: boolean;
  /** the terminal's width (with tty) */
  columns?: number;
  /** stdin is that terminal too (with tty), where nothing is typed but `input` (a prompt would wait there) */
  stdinTty?: boolean;
  /** every write to stdout fails with this errno code (ENOSPC, EIO …) */
  stdoutFails?: string;
  /** aborted, the run is stopped as by Ctrl-C or SIGTERM (a command that runs until then: emulator serve) */
  signal?: AbortSignal;
  /** each write to stdout as it happens (e.g. the URL a server prints first) */
  onStdout?: (text: string) => void;
}

/**
 * Run a command line in this process, as gh's tests do with IOStreams: the same command tree, specs and runners as
 * the binary, with in-memory streams (a pipe, or a terminal of a chosen width) and the environment svcProcess() would
 * give, against the test emulator over loopback. Scanned for keys like svcProcess(). For behaviour that needs a process
 * of
 * its own (signals, exit on a closed pipe, real terminals, sound devices, the launcher), use svcProcess()/spawnSvc()
 * (test/helpers/subprocess.ts).
 */
export async function svcInProcess(args: string[], opts: InProcessOptions = {}): Promise<RunResult> {
  const { runCli } = await import('../../src/cli.js');
  const input = opts.inputFile !== undefined ? readFileSync(opts.inputFile) : opts.input;
  const terminalIn = !!(opts.tty && opts.stdinTty);
  const stdin: Readable & { isTTY: boolean; setRawMode?: () => unknown } = Object.assign(
    Readable.from(input === undefined ? [] : [Buffer.from(input)]),
    { isTTY: terminalIn },
    terminalIn ? { setRawMode: () => stdin } : {},
  );
  const stdout = new MemoryOutput(
    !!opts.tty,
    opts.tty ? (opts.columns ?? 80) : undefined,
    opts.stdoutFails,
    opts.onStdout,
  );
  const stderr = new MemoryOutput(!!opts.tty, opts.tty ? (opts.columns ?? 80) : undefined);
  const abort = new AbortController();
  if (opts.signal?.aborted) abort.abort();
  else opts.signal?.addEventListener('abort', () => abort.abort(), { once: true });
  // a working directory of its own (tests of one file run one after another; the pool runs files in processes)
  const cwd = process.cwd();
  if (opts.cwd) process.chdir(opts.cwd);
  let exitCode: number;
  try {
    const env = { ...svcEnv(opts), TERM: opts.tty ? 'xterm' : undefined };
    exitCode =
      args[0] === '__complete'
        ? await completeInProcess(args.slice(1), env, stdout)
        : await runCli(args, {
            streams: { stdin, stdout, stderr },
            env,
            control: { signal: abort.signal, signalExit: undefined, setInterruptHandler: () => {} },
          });
  } finally {
    process.chdir(cwd);
  }
  const result = { exitCode, stdout: stdout.text(), stderr: stderr.text() };
  captureOutput(args, result.stdout + result.stderr);
  assertNoSecrets(result.stdout + result.stderr, args);
  return result;
}

/**
 * `svc __complete KIND WORDS…` as the launcher runs it: straight to the completion values (no command tree), printed,
 * exit 0 (the launcher's own path, which exits within the time limit whatever is still open, is run as a process).
 */
async function completeInProcess(argv: string[], env: NodeJS.ProcessEnv, stdout: MemoryOutput): Promise<number> {
  const { completionAnswer } = await import('../../src/commands/completion/dynamic.js');
  const answer = await completionAnswer(argv, env);
  await new Promise<void>((resolve, reject) => stdout.write(answer, (err) => (err ? reject(err) : resolve())));
  return 0;
}

/**
 * A command that runs until stopped (`svc emulator serve`), in-process: resolves once it has printed its first line
 * (a server's URL), or fails if it ended before that; `stop()` stops it as Ctrl-C does and waits for its end.
 */
export async function svcUntilStopped(
  args: string[],
  opts: InProcessOptions = {},
): Promise<{ firstLine: string; stop: () => Promise<RunResult> }> {
  const abort = new AbortController();
  let printed = '';
  let linePrinted: (line: string) => void = () => {};
  const firstLine = new Promise<string>((resolve) => (linePrinted = resolve));
  const run = svcInProcess(args, {
    ...opts,
    signal: abort.signal,
    onStdout: (text) => {
      printed += text;
      if (printed.includes('\n')) linePrinted(printed.slice(0, printed.indexOf('\n')).trim());
    },
  });
  const stop = () => {
    abort.abort();
    return run;
  };
  const ended = run.then((r) => Promise.reject(new Error(`${args.join(' ')} ended early: ${r.stderr}`)));
  ended.catch(() => {});
  return { firstLine: await Promise.race([firstLine, ended]), stop };
}
