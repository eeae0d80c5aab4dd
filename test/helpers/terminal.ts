// Real terminals for tests: `script` gives the CLI a pseudo-terminal of a chosen size (0 columns included) and
// records every byte it wrote, escapes included; tmux gives an interactive screen to type into and read back.
import { execFileSync } from 'node:child_process';
import { svcOnTerminal, type RunOptions } from './cli.js';

export const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Any SGR (colour/style) escape sequence. */
export const SGR = /\u001b\[[0-9;:]*m/;

export interface PtyRun {
  exitCode: number;
  /** stdout and stderr as the terminal received them (CR LF line ends, escapes kept) */
  output: string;
}

/** Run `svc args` on a pseudo-terminal of `cols` × `rows` (stdin, stdout and stderr all on it). */
export async function svcInPty(args: string[], opts: RunOptions & { cols: number; rows?: number; cwd?: string }): Promise<PtyRun> {
  // the CLI is started by test/helpers/cli.ts (the only place that may: its output is scanned for keys)
  const r = await svcOnTerminal(args, { ...opts, env: { TERM: 'xterm-256color', ...opts.env }, timeout: opts.timeout ?? 60_000 });
  return { exitCode: r.exitCode, output: r.screen };
}

/** One tmux server (its own socket) for a test file; sessions are shells or commands on a screen of a set size. */
export class Tmux {
  readonly socket = `svc-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

  run(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }

  /** Start `command` (a shell line) in a detached session `name` of `cols` × `rows`, with exactly `env`. */
  start(name: string, command: string, env: Record<string, string | undefined>, cols = 120, rows = 40): void {
    const assignments = Object.entries(env)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${quote(v!)}`)
      .join(' ');
    this.run('new-session', '-d', '-s', name, '-x', String(cols), '-y', String(rows), `env -i ${assignments} ${command}`);
  }

  keys(name: string, ...keys: string[]): void {
    this.run('send-keys', '-t', name, ...keys);
  }

  /** Literal text, no key names. */
  type(name: string, text: string): void {
    this.run('send-keys', '-t', name, '-l', text);
  }

  screen(name: string): string {
    return this.run('capture-pane', '-t', name, '-p', '-S', '-200');
  }

  /** Poll the screen until it shows what is expected (the limit only avoids hanging; no timing is asserted). */
  async waitFor(name: string, what: string | RegExp, from = 0): Promise<string> {
    for (let i = 0; i < 400; i++) {
      const screen = this.screen(name);
      const rest = screen.slice(from);
      if (typeof what === 'string' ? rest.includes(what) : what.test(rest)) return screen;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the terminal never showed ${String(what)}:\n${this.screen(name)}`);
  }

  kill(): void {
    try {
      this.run('kill-server');
    } catch {
      // already gone
    }
  }
}
