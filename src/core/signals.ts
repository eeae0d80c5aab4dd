// Signals and process trees per platform: what the CLI listens to, how it stops a child and everything the child
// started. POSIX (Linux, macOS): SIGTERM and SIGHUP (the terminal went away) stop a command like Ctrl-C, exiting
// 128 + the signal's number; a child runs in its own process group, and the group is signalled. Windows has neither
// SIGTERM nor SIGHUP to send, and no process groups: Ctrl-C arrives as SIGINT (in a readline REPL as readline's
// 'SIGINT'), Ctrl-Break as SIGBREAK, closing the console window as SIGHUP (Windows ends the process ~10 s later); a
// child is stopped with its whole tree by `taskkill /T /F`. `platform` is a parameter so that tests can ask for
// another platform's rules.
import { ExitCode } from './errors.js';
import { childEnvironment } from './environment.js';

/** The signals besides SIGINT that stop a running command, and the exit code each gives. */
export function stopSignals(platform: NodeJS.Platform = process.platform): { signal: NodeJS.Signals; exit: number }[] {
  if (platform === 'win32')
    return [
      { signal: 'SIGBREAK', exit: ExitCode.interrupted },
      { signal: 'SIGHUP', exit: ExitCode.hangup },
    ];
  return [
    { signal: 'SIGTERM', exit: ExitCode.terminated },
    { signal: 'SIGHUP', exit: ExitCode.hangup },
  ];
}

/** Whether a process can send itself `signal` to die of it (on Windows process.kill sends only INT, TERM, KILL). */
export function canRaise(signal: NodeJS.Signals, platform: NodeJS.Platform = process.platform): boolean {
  return platform !== 'win32' || signal === 'SIGINT' || signal === 'SIGTERM' || signal === 'SIGKILL';
}

/** Whether a child can be started in a process group of its own (spawn's `detached`: a new console on Windows). */
export function ownProcessGroup(platform: NodeJS.Platform = process.platform): boolean {
  return platform !== 'win32';
}

/** What stopping a process tree does, for tests: the calls it would make. */
export interface TreeKiller {
  /** process.kill */
  kill(pid: number, signal: NodeJS.Signals): void;
  /** runs a program, detached, output ignored (taskkill) */
  run(file: string, args: string[]): void;
}

const REAL: TreeKiller = {
  kill: (pid, signal) => process.kill(pid, signal),
  run: (file, args) => {
    const { spawn } = process.getBuiltinModule('node:child_process');
    // taskkill needs no secret of svc's either
    spawn(file, args, { stdio: 'ignore', env: childEnvironment(process.env), windowsHide: true }).on('error', () => {});
  },
};

/**
 * Stop a child started with `detached: ownProcessGroup()` and every process it started: POSIX signals its group
 * (-pid); Windows runs `taskkill /PID pid /T /F` (no signals there: the tree is ended at once, whatever `signal`
 * asks). A tree already gone is not an error.
 */
export function stopTree(
  pid: number,
  signal: NodeJS.Signals,
  platform: NodeJS.Platform = process.platform,
  killer: TreeKiller = REAL,
): void {
  try {
    if (platform === 'win32') killer.run('taskkill', ['/PID', String(pid), '/T', '/F']);
    else killer.kill(-pid, signal);
  } catch {
    // already gone
  }
}

/** Whether a process is running (one of another user's counts): for files a killed process left (temps, locks). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// where processStop keeps the callbacks onAbort put on its signal (a registered symbol: one key in every chunk)
const STOP_CALLBACKS = Symbol.for('svc.stopCallbacks');

/**
 * The process's stop (cli.ts: Ctrl-C, SIGTERM, SIGHUP): `signal` is a real AbortSignal for Node's APIs and every
 * listener; `abort()` aborts it, then runs the callbacks onAbort put on it, which skip EventTarget's listeners (their
 * first use costs a request command ~0.4 ms of CPU, more than the rest of its stop: docs/performance.md, issue 41).
 */
export function processStop(): { signal: AbortSignal; abort(): void } {
  const controller = new AbortController();
  const callbacks = new Set<() => void>();
  Object.defineProperty(controller.signal, STOP_CALLBACKS, { value: callbacks });
  return {
    signal: controller.signal,
    abort() {
      controller.abort();
      const now = [...callbacks];
      callbacks.clear();
      for (const fn of now) fn();
    },
  };
}

/** Calls `fn` once when `signal` aborts (an 'abort' listener, unless processStop made the signal); returns the undo. */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  const callbacks = (signal as AbortSignal & { [STOP_CALLBACKS]?: Set<() => void> })[STOP_CALLBACKS];
  if (callbacks) {
    callbacks.add(fn);
    return () => callbacks.delete(fn);
  }
  signal.addEventListener('abort', fn, { once: true });
  return () => signal.removeEventListener('abort', fn);
}
