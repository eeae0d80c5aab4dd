// Aliases (`svc alias set NAME EXPANSION`, as gh's): stored in aliases.json in the config folder (a file people may
// edit: {"aliases": {"NAME": "EXPANSION"}}), expanded by cli.ts before commander parses. An expansion is svc's words
// with $1, $2 … taken from the arguments (the ones not taken are appended), or, starting with `!`, a line for `sh -c`
// that gets the arguments as "$@". docs/scripting.md.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configDir } from '../core/paths.js';
import { UsageError } from '../core/errors.js';
import { writeJsonFile } from '../core/json-file.js';
import { splitCommandLine } from './key-command.js';

/** A name an alias may have: a word that is no flag. */
export const ALIAS_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

export const aliasesFile = (env: NodeJS.ProcessEnv): string => join(configDir(env), 'aliases.json');

/** The aliases by name (none when the file is missing); a file that is not the expected JSON is exit 2 naming it. */
export function readAliases(env: NodeJS.ProcessEnv): Record<string, string> {
  const file = aliasesFile(env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  try {
    const data = JSON.parse(text) as { aliases?: unknown };
    const aliases = data.aliases ?? {};
    if (typeof aliases !== 'object' || Array.isArray(aliases)) throw new Error('aliases is not an object');
    for (const v of Object.values(aliases)) if (typeof v !== 'string') throw new Error('an expansion is not text');
    return { ...(aliases as Record<string, string>) };
  } catch (err) {
    throw new UsageError(`${file}: not an aliases file (${(err as Error).message}); fix or remove it`);
  }
}

export function writeAliases(env: NodeJS.ProcessEnv, aliases: Record<string, string>): void {
  const sorted = Object.fromEntries(Object.entries(aliases).sort(([a], [b]) => a.localeCompare(b)));
  writeJsonFile(aliasesFile(env), { aliases: sorted }, { pretty: true });
}

/** What an alias turns a command line into: svc's own words, or a shell line with its arguments. */
export type Expansion = { argv: string[] } | { shell: string; args: string[] };

/** The words of an expansion (a quote left open is exit 2). */
export function expansionWords(expansion: string): string[] {
  return splitCommandLine(expansion, (m) => new UsageError(`alias: ${m}`));
}

/** `name`'s expansion applied to the arguments that followed it. */
export function expandAlias(name: string, expansion: string, args: string[]): Expansion {
  if (expansion.startsWith('!')) return { shell: expansion.slice(1), args };
  let highest = 0;
  const words = expansionWords(expansion).map((word) =>
    word.replace(/\$(\d+)/g, (_, n: string) => {
      const i = Number(n);
      highest = Math.max(highest, i);
      return args[i - 1] ?? '';
    }),
  );
  if (args.length < highest) {
    throw new UsageError(
      `alias ${name} takes ${highest} argument${highest > 1 ? `s ($1…$${highest})` : ' ($1)'}, got ${args.length}: ` +
        `${name} → ${expansion}`,
    );
  }
  return { argv: [...words, ...args.slice(highest)] };
}

/**
 * Run a shell alias: `sh -c LINE NAME ARGS…` (so "$1", "$@" are the arguments), with svc's streams (the process's
 * own descriptors when they are the process's, so that a terminal stays one), without svc's secret variables
 * (core/environment.ts). Its exit code is the run's; a signal that ended it is 128 + its number.
 */
export async function runShellAlias(
  name: string,
  line: string,
  args: string[],
  io: { streams: import('../term/output.js').Streams; env: NodeJS.ProcessEnv; signal: AbortSignal },
): Promise<number> {
  const { spawn } = await import('node:child_process');
  const { childEnvironment } = await import('../core/environment.js');
  const { constants } = await import('node:os');
  const own = io.streams.stdout === process.stdout;
  const child = spawn('sh', ['-c', line, name, ...args], {
    env: childEnvironment(io.env),
    stdio: own ? 'inherit' : ['pipe', 'pipe', 'pipe'],
  });
  if (!own) {
    child.stdout!.on('data', (b: Buffer) => io.streams.stdout.write(b));
    child.stderr!.on('data', (b: Buffer) => io.streams.stderr.write(b));
    child.stdin!.on('error', () => {});
    io.streams.stdin.pipe(child.stdin!);
  }
  const stop = () => child.kill('SIGINT');
  io.signal.addEventListener('abort', stop, { once: true });
  try {
    return await new Promise<number>((resolve, reject) => {
      child.on('error', (err) => reject(new UsageError(`alias ${name}: could not run sh: ${err.message}`)));
      child.on('close', (code, signal) => resolve(code ?? 128 + ((signal && constants.signals[signal]) || 0)));
    });
  } finally {
    io.signal.removeEventListener('abort', stop);
  }
}
