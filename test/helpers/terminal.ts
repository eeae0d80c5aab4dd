// The CLI on a real terminal: a pseudo-terminal of util-linux `script`, or a tmux server of its own (screens read,
// keys typed). Every screen read is scanned for keys.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { ROOT } from './files.js';
import { commandLine, shellQuote, svcEnv, throughHelper, type RunOptions } from './run-env.js';
import { assertNoSecrets } from './secrets.js';
import { needTools } from './tools.js';

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
    needTools('tmux');
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
    this.tmux(
      'new-session',
      '-d',
      '-x',
      String(opts.cols ?? 120),
      '-y',
      String(opts.rows ?? 40),
      '-s',
      'svc',
      `cd ${shellQuote(opts.cwd ?? ROOT)} && env -i ${vars} ${command}`,
    );
  }

  /** tmux send-keys: text, or key names such as 'Enter', 'Space', 'C-c' */
  keys(...keys: string[]): void {
    this.tmux('send-keys', '-t', 'svc', ...keys);
  }

  private static captureArgs(opts: { escapes?: boolean }): string[] {
    return ['capture-pane', '-p', '-J', ...(opts.escapes ? ['-e'] : []), '-t', 'svc', '-S', '-200'];
  }

  /** The screen's text; with `escapes`, its styles as SGR sequences too (capture-pane -e). */
  screen(opts: { escapes?: boolean } = {}): string {
    const s = this.tmux(...TmuxTerminal.captureArgs(opts));
    assertNoSecrets(s, 'tmux screen');
    return s;
  }

  /**
   * The screen read without blocking this process: what a test polls with. A read with execFileSync holds the
   * worker's event loop for the tmux client's life (tens of ms on a busy machine), and with it an emulator serving
   * the CLI from this process (real-time audio stalls) and the file's other tests.
   */
  read(opts: { escapes?: boolean } = {}): Promise<string> {
    needTools('tmux');
    const args = ['-L', this.socket, ...TmuxTerminal.captureArgs(opts)];
    return new Promise((resolve, reject) => {
      throughHelper(() =>
        execFile('tmux', args, { encoding: 'utf8' }, (err, s) => {
          if (err) return reject(err);
          assertNoSecrets(s, 'tmux screen');
          resolve(s);
        }),
      );
    });
  }

  /**
   * Poll the screen until `what` shows (after offset `after`); no timing is asserted, the limit only avoids hanging.
   */
  async waitFor(what: string | RegExp, after = 0, tries = 300): Promise<string> {
    for (let i = 0; i < tries; i++) {
      const screen = await this.read();
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
