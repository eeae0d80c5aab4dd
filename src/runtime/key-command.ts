// `api_key_cmd`: the API key printed by a command of the user's (a password manager: `pass show svc/key`,
// `op read op://vault/svc/key`, `security find-generic-password -w -s svc`), run on first use in a command
// that needs the key — without a shell (the words are split like a shell splits them, nothing is expanded),
// with no stdin (svc's stdin may be the user's data), within 30 s. The first line of its output, trimmed, is
// the key; its output is never logged or shown, even when it fails (only its exit status and stderr are).
import { spawnSync } from 'node:child_process';
import { MissingKeyError } from '../core/errors.js';
import { terminalSafe } from '../term/terminal-safe.js';

const TIMEOUT_MS = 30_000;

/** Split a command line into words: spaces separate, '…' and "…" quote, a backslash escapes; nothing expands. */
export function splitCommandLine(line: string): string[] {
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
  if (quote) throw new MissingKeyError(`api_key_cmd: the quote ${quote} is not closed in ${JSON.stringify(line)}`);
  if (word !== undefined) words.push(word);
  return words;
}

/** Run the key command; a failure is a MissingKeyError (exit 4) that says what went wrong, never what it printed. */
export function keyFromCommand(line: string, env: NodeJS.ProcessEnv, where: string): string {
  const argv = splitCommandLine(line);
  if (argv.length === 0)
    throw new MissingKeyError(`api_key_cmd (${where}) is empty: set it to a command that prints the key, or unset it`);
  // the command gets the environment without svc's own secrets
  const childEnv = { ...env };
  delete childEnv.SVC_API_KEY;
  const r = spawnSync(argv[0]!, argv.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: childEnv,
    timeout: TIMEOUT_MS,
    maxBuffer: 1 << 20,
    encoding: 'utf8',
  });
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
