// `api_key_cmd`: the API key printed by a command of the user's (a password manager: `pass show svc/key`,
// `op read op://vault/svc/key`, `security find-generic-password -w -s svc`), run on first use in a command
// that needs the key — without a shell (the words are split like a shell splits them, nothing is expanded),
// with no stdin (svc's stdin may be the user's data), within 30 s. The first line of its output, trimmed, is
// the key; its output is never logged or shown, even when it fails (only its exit status and stderr are).
import { MissingKeyError } from '../core/errors.js';
import { childEnvironment } from '../core/environment.js';
import { terminalSafe } from '../term/terminal-safe.js';
import { stopTree } from '../core/signals.js';

const TIMEOUT_MS = 30_000;

/** Split a command line into words: spaces separate, '…' and "…" quote, a backslash escapes; nothing expands. */
export function splitCommandLine(
  line: string,
  unclosed: (message: string) => Error = (m) => new MissingKeyError(`api_key_cmd: ${m}`),
): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!))
        word += line[++i]!;
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= '';
    } else if (ch === '\\' && i + 1 < line.length) word = (word ?? '') + line[++i]!;
    else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + ch;
  }
  if (quote) throw unclosed(`the quote ${quote} is not closed in ${JSON.stringify(line)}`);
  if (word !== undefined) words.push(word);
  return words;
}

/** What the key command left: its output, how it ended, or why it could not run. */
interface KeyRun {
  stdout: string;
  stderr: string;
  status: number | null;
  signal: NodeJS.Signals | null;
  error?: NodeJS.ErrnoException;
}

/**
 * Run the command in svc's own session and process group (a password manager may prompt on the terminal, which a
 * new session would not have). A timeout kills it (Windows: its whole tree, taskkill) and answers without waiting
 * for a helper it left running with our pipes open.
 */
async function runKeyCommand(argv: string[], env: NodeJS.ProcessEnv): Promise<KeyRun> {
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let timedOut = false;
    const child = spawn(argv[0]!, argv.slice(1), {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: childEnvironment(env),
      windowsHide: true,
    });
    const timer = setTimeout(() => {
      timedOut = true;
      if (process.platform === 'win32' && child.pid) stopTree(child.pid, 'SIGKILL');
      else child.kill('SIGKILL');
    }, TIMEOUT_MS);
    const keep = (into: Buffer[]) => (b: Buffer) => {
      if ((size += b.length) <= 1 << 20) into.push(b);
    };
    child.stdout.on('data', keep(out));
    child.stderr.on('data', keep(err));
    let finished = false;
    const done = (r: Omit<KeyRun, 'stdout' | 'stderr'>) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      const error = timedOut ? Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }) : r.error;
      resolve({
        ...r,
        error,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    };
    child.on('error', (error) => done({ status: null, signal: null, error }));
    child.on('close', (status, signal) => done({ status, signal }));
    child.on('exit', (status, signal) => timedOut && done({ status, signal }));
  });
}

/** Run the key command; a failure is a MissingKeyError (exit 4) that says what went wrong, never what it printed. */
export async function keyFromCommand(line: string, env: NodeJS.ProcessEnv, where: string): Promise<string> {
  const argv = splitCommandLine(line);
  if (argv.length === 0)
    throw new MissingKeyError(`api_key_cmd (${where}) is empty: set it to a command that prints the key, or unset it`);
  // the command gets the environment without svc's own secrets (core/environment.ts)
  const r = await runKeyCommand(argv, env);
  const shown = `api_key_cmd ${JSON.stringify(argv[0])} (${where})`;
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'not found (is it installed and on PATH?)'
        : code === 'ETIMEDOUT'
          ? `gave no key within ${TIMEOUT_MS / 1000} s`
          : r.error.message;
    throw new MissingKeyError(`${shown}: ${why}`);
  }
  if (r.status !== 0) {
    const said = (r.stderr ?? '').trim().split('\n')[0]?.slice(0, 200);
    throw new MissingKeyError(
      `${shown} failed ` +
        `(${r.signal ? `killed by ${r.signal}` : `exit ${r.status}`})${said ? `: ${terminalSafe(said)}` : ''}`,
    );
  }
  const key = (r.stdout ?? '').split('\n')[0]!.trim();
  if (!key) throw new MissingKeyError(`${shown} printed no key (its first line of output was empty)`);
  if (/\s/.test(key))
    throw new MissingKeyError(`${shown} printed something that is not a key (its first line has spaces)`);
  return key;
}
